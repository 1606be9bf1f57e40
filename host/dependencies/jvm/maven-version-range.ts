/**
 * Maven's version ranges as the enforcer's `requireMavenVersion` reads them (`[3.9,)`, `[3.6.3,4)`,
 * `(,3.8.8],[3.9.2,)`, `[3.9.6]`; a bare `3.9.0` means that version or a later one), and the
 * choice of a Maven release in one (docs/real-repositories.md#maven-and-gradle).
 */

/** One interval of a range: a missing bound is open. */
interface Restriction {
  lower?: string;
  lowerInclusive: boolean;
  upper?: string;
  upperInclusive: boolean;
}

/** Maven's qualifiers below a release, lowest first (ComparableVersion's order); `ga`/`final` are the release itself. */
const BEFORE_RELEASE = ['alpha', 'a', 'beta', 'b', 'milestone', 'm', 'rc', 'cr', 'snapshot'];

/** A version as numbers and the qualifier after them: `4.0.0-rc-2` → [4, 0, 0] and `rc-2`. */
function split(version: string): { numbers: number[]; qualifier: string } {
  const match = /^(\d+(?:\.\d+)*)(?:[.-]?(.*))?$/.exec(version.trim());
  const numbers = (match?.[1] ?? '0').split('.').map(Number);
  while (numbers.length > 1 && numbers.at(-1) === 0) numbers.pop();
  const qualifier = (match ? (match[2] ?? '') : version.trim()).toLowerCase();
  return { numbers, qualifier: ['ga', 'final', 'release'].includes(qualifier) ? '' : qualifier };
}

/** Where a qualifier sorts: one of BEFORE_RELEASE below a release (0), anything else (`sp`) after it. */
const rank = (qualifier: string): number => {
  if (!qualifier) return 0;
  const known = BEFORE_RELEASE.findIndex((q) => qualifier === q || new RegExp(`^${q}[-.]?\\d*$`).test(qualifier));
  return known >= 0 ? known - BEFORE_RELEASE.length : 1;
};

/**
 * Maven's order of two versions, as ComparableVersion has it for what Maven releases are called:
 * numbers first, trailing zeros ignored (`3.9` is `3.9.0`), then a qualifier (`-alpha-2`, `-rc-1`)
 * before the release it leads to.
 */
export function compareMavenVersions(a: string, b: string): number {
  const [x, y] = [split(a), split(b)];
  for (let i = 0; i < Math.max(x.numbers.length, y.numbers.length); i++) {
    const d = (x.numbers[i] ?? 0) - (y.numbers[i] ?? 0);
    if (d) return d;
  }
  return rank(x.qualifier) - rank(y.qualifier) || x.qualifier.localeCompare(y.qualifier, 'en', { numeric: true });
}

/** `spec` as restrictions; undefined when it is not a range Maven would read. */
export function parseMavenRange(spec: string): Restriction[] | undefined {
  const text = spec.replace(/\s+/g, '');
  if (/^[^[\](),]+$/.test(text)) return [{ lower: text, lowerInclusive: true, upperInclusive: false }];
  const found = [...text.matchAll(/([[(])([^[\]()]*)([\])])(,?)/g)];
  // Every character must belong to a restriction: `[3.9,)x`, `3.9,4` or `[3.9,),` is no range.
  if (!found.length || found.map((m) => m[0]).join('') !== text || text.endsWith(',')) return undefined;
  const restrictions: Restriction[] = [];
  for (const [, open, inside, close] of found) {
    const bounds = inside.split(',');
    if (bounds.length > 2 || (bounds.length === 1 && (open !== '[' || close !== ']' || !bounds[0]))) return undefined;
    const [lower, upper] = bounds.length === 1 ? [bounds[0], bounds[0]] : bounds;
    restrictions.push({ lower: lower || undefined, lowerInclusive: open === '[', upper: upper || undefined, upperInclusive: close === ']' });
  }
  return restrictions;
}

/** True when `version` is in `range` (a spec, as the enforcer prints it); false for a spec that is no range. */
export function inMavenRange(version: string, range: string): boolean {
  return (parseMavenRange(range) ?? []).some((r) => {
    const low = r.lower === undefined ? 1 : compareMavenVersions(version, r.lower);
    const high = r.upper === undefined ? -1 : compareMavenVersions(version, r.upper);
    return (low > 0 || (low === 0 && r.lowerInclusive)) && (high < 0 || (high === 0 && r.upperInclusive));
  });
}

/** A Maven release's own name: numbers only, never a 4.0.0-alpha/beta/rc. */
const RELEASE = /^\d+(\.\d+)*$/;

/** The release line of a version: `3.9.11` → `3.9`. */
const line = (version: string): string => version.split('.').slice(0, 2).join('.');

/**
 * Of `versions`, the release to run for `range` instead of the machine's Maven `machine`: the one
 * closest to it that the range allows, as its newest patch. That is the newest of the first release
 * line (3.8, 3.9, 3.10) above the machine's with a release in the range (`[3.9,)` on 3.8.7 takes
 * 3.9.16, not 3.10.2), else, when the range allows only older Mavens, the newest of those.
 * Undefined when no release is in the range.
 */
export function chooseMaven(versions: string[], range: string, machine: string): string | undefined {
  const fits = versions.filter((v) => RELEASE.test(v) && inMavenRange(v, range)).sort(compareMavenVersions);
  const newer = fits.filter((v) => compareMavenVersions(v, machine) > 0);
  if (!newer.length) return fits.at(-1);
  return newer.filter((v) => line(v) === line(newer[0])).at(-1);
}
