/**
 * The part of npm's semver ranges that `engines.node` uses (`>=22`, `^22.14.0 || >= 24.10.0`,
 * `20.x`, `~18.17`, `18 - 20`), for released Node versions (no prerelease tags).
 */
type Version = [number, number, number];

/** `v22.14.0` / `22.14` / `22` as numbers, missing parts undefined; undefined when it is not a version. */
function parts(text: string): (number | undefined)[] | undefined {
  const match = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+].*)?$/.exec(text.trim());
  if (!match) return undefined;
  return match.slice(1, 4).map((p) => (p === undefined || /[xX*]/.test(p) ? undefined : Number(p)));
}

/** A released version's numbers: `v20.20.2` → [20, 20, 2]. */
export function nodeVersion(text: string): Version | undefined {
  const p = parts(text);
  return p && p.every((n) => n !== undefined) ? (p as Version) : undefined;
}

const compare = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** The lowest version a partial one stands for, and the first version past all it stands for (`22.1` → 22.1.0, 22.2.0). */
function bounds(p: (number | undefined)[]): [Version, Version | undefined] {
  const [major, minor, patch] = p;
  if (major === undefined) return [[0, 0, 0], undefined];
  if (minor === undefined) return [[major, 0, 0], [major + 1, 0, 0]];
  if (patch === undefined) return [[major, minor, 0], [major, minor + 1, 0]];
  return [[major, minor, patch], [major, minor, patch + 1]];
}

/** One comparator (`>=22`, `^20.19.0`, `~18.17`, `22.x`) as a test of a version; undefined when it cannot be read. */
function comparator(token: string): ((v: Version) => boolean) | undefined {
  const match = /^(<=|>=|<|>|=|\^|~>?|)(.*)$/.exec(token)!;
  const p = parts(match[2] || '*');
  if (!p) return undefined;
  const [low, past] = bounds(p);
  const below = (limit: Version | undefined) => (v: Version) => !limit || compare(v, limit) < 0;
  switch (match[1]) {
    case '>=':
      return (v) => compare(v, low) >= 0;
    case '>':
      return past ? (v) => compare(v, past) >= 0 : () => false;
    case '<':
      return (v) => compare(v, low) < 0;
    case '<=':
      return below(past);
    case '^': {
      // Up to the next change of the first part that is not zero: ^22.14.0 < 23, ^0.3.1 < 0.4.
      const [major, minor] = p;
      const limit: Version | undefined = major === undefined ? undefined : major > 0 || minor === undefined ? [major + 1, 0, 0] : [0, minor + 1, 0];
      return (v) => compare(v, low) >= 0 && below(limit)(v);
    }
    case '~':
    case '~>': {
      const limit: Version | undefined = p[0] === undefined ? undefined : p[1] === undefined ? [p[0] + 1, 0, 0] : [p[0], p[1] + 1, 0];
      return (v) => compare(v, low) >= 0 && below(limit)(v);
    }
    default:
      return (v) => compare(v, low) >= 0 && below(past)(v);
  }
}

/** True when `version` satisfies `range`; false when the range cannot be read, as npm would not match it either. */
export function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((set) => {
    const hyphen = /^\s*(\S+)\s+-\s+(\S+)\s*$/.exec(set);
    const tokens = hyphen ? [`>=${hyphen[1]}`, `<=${hyphen[2]}`] : set.trim().replace(/(<=|>=|<|>|=|\^|~>?)\s+/g, '$1').split(/\s+/).filter(Boolean);
    const tests = (tokens.length ? tokens : ['*']).map(comparator);
    return tests.every((test) => test?.(version));
  });
}
