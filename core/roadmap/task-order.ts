/** A task id's runs of digits and of other characters: `T10a` → `T`, `10`, `a`. */
const CHUNKS = /\d+|\D+/g;

/** Compares two runs of digits as the numbers they write, without a limit on their length. */
function compareDigits(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Task ids in natural order (docs/roadmaps.md#how-a-run-goes): runs of digits compare as numbers,
 * the rest by character code, so `T2` comes before `T10` and `db-9` before `db-10`; ids that only
 * differ in leading zeros (`T01`, `T1`) fall back on their characters, so the order is total.
 * No locale: workflow code must order the same on every worker.
 */
export function compareTaskIds(a: string, b: string): number {
  const x = a.match(CHUNKS) ?? [];
  const y = b.match(CHUNKS) ?? [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const digits = /^\d/.test(x[i]) && /^\d/.test(y[i]);
    const order = digits ? compareDigits(x[i], y[i]) : x[i] < y[i] ? -1 : x[i] > y[i] ? 1 : 0;
    if (order !== 0) return order;
  }
  if (x.length !== y.length) return x.length - y.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
