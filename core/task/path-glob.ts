/**
 * Globs over repository paths (`a/b/c.txt`, relative to the root, `/`-separated). Pure: this
 * module is bundled into workflow code.
 */

const compiled = new Map<string, RegExp>();

/** The regular expression of one path segment: `*` within the segment, `?` one character of it. */
function segmentSource(segment: string): string {
  let source = '';
  for (const ch of segment) {
    if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else source += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return source;
}

/**
 * `glob` as an anchored regular expression. A glob is always anchored at the root, so one without
 * `/` names a root entry only; `**` as a whole segment is any number of segments, none included;
 * a leading `/` changes nothing and a trailing `/` means everything below.
 */
function globRegExp(glob: string): RegExp {
  const cached = compiled.get(glob);
  if (cached) return cached;
  let pattern = glob.startsWith('/') ? glob.slice(1) : glob;
  if (pattern.endsWith('/')) pattern += '**';
  const segments = pattern.split('/');
  let source = '';
  // Whether the next segment must be preceded by a `/` (there is a segment before it).
  let afterSegment = false;
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '**') {
      if (last) source += afterSegment ? '(?:/.*)?' : '.*';
      else {
        source += `${afterSegment ? '/' : ''}(?:[^/]*/)*`;
        afterSegment = false;
      }
      return;
    }
    source += `${afterSegment ? '/' : ''}${segmentSource(segment)}`;
    afterSegment = true;
  });
  const regExp = new RegExp(`^${source}$`);
  compiled.set(glob, regExp);
  return regExp;
}

/**
 * True when `path` matches one of `globs`: `**` any depth (`.github/workflows/**` matches
 * `.github/workflows/ci.yml` and deeper), `*` and `?` within one segment; case-sensitive.
 */
export function matchesAnyGlob(path: string, globs: readonly string[]): boolean {
  return globs.some((glob) => globRegExp(glob).test(path));
}
