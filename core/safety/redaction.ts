/**
 * The one redaction step every text dex persists or sends passes (docs/security.md#redaction):
 * known secret values (the worker's and setup's secret environment values) and the usual shapes
 * of credentials are replaced by a stable marker that says what was removed, `[REDACTED:what]`.
 * Pure: the host gathers the secret values (host/secrets/secret-values.ts) and applies it at the
 * store, the payload codec, the model request and the cassette writer.
 */

/** A secret value to remove wherever it appears, and the name its marker gives (e.g. the variable's). */
export interface KnownSecret {
  name: string;
  value: string;
}

/** Values shorter than this are never treated as secrets: they would match ordinary text. */
export const MIN_SECRET_LENGTH = 8;

/** The shapes of credentials removed whatever their value; each marker names the shape. */
const SHAPES: readonly { what: string; pattern: RegExp; keep?: (match: string, ...groups: string[]) => string; after?: string }[] = [
  { what: 'private-key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g },
  { what: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{8,}/g },
  { what: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g },
  { what: 'aws-access-key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { what: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  // The header's value, up to the end of its line: a scheme and a credential, or a bare token.
  { what: 'authorization', pattern: /\b((?:proxy-)?authorization[ \t]*[:=][ \t]*)(?![ \t[])[^\r\n"]+/gi, keep: (_m, head) => head },
  { what: 'bearer-token', pattern: /\b(bearer\s+)[A-Za-z0-9._~+/=-]{12,}/gi, keep: (_m, head) => head },
  // user[:password]@ in any URL: a clone URL with a token, a proxy, a database URL.
  { what: 'url-userinfo', pattern: /\b([a-z][a-z0-9+.-]*:\/\/)[^/\s:@"'<>[]+(?::[^/\s@"'<>]*)?@/gi, keep: (_m, scheme) => scheme, after: '@' },
];

/** Removes secrets from text; `redact` of text with none returns the same string. */
export interface Redactor {
  redact(text: string): string;
  /** True when `text` holds anything `redact` would remove (cheaper than comparing). */
  finds(text: string): boolean;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A redactor for the shapes above and `secrets` (longest first, so a value holding another goes whole). */
export function createRedactor(secrets: readonly KnownSecret[] = []): Redactor {
  const known = [...new Map(secrets.filter((s) => s.value.length >= MIN_SECRET_LENGTH).map((s) => [s.value, s.name])).entries()].sort(
    (a, b) => b[0].length - a[0].length,
  );
  const byValue = new Map(known);
  const valuePattern = known.length ? new RegExp(known.map(([value]) => escapeRegExp(value)).join('|'), 'g') : undefined;
  const finds = (text: string): boolean => {
    if (valuePattern && (valuePattern.lastIndex = 0, valuePattern.test(text))) return true;
    return SHAPES.some(({ pattern }) => ((pattern.lastIndex = 0), pattern.test(text)));
  };
  return {
    finds,
    redact(text: string): string {
      if (!finds(text)) return text;
      let out = valuePattern ? text.replace(valuePattern, (value) => `[REDACTED:${byValue.get(value)}]`) : text;
      for (const { what, pattern, keep, after = '' } of SHAPES) {
        out = out.replace(pattern, (match: string, ...groups: string[]) => `${keep ? keep(match, ...groups) : ''}[REDACTED:${what}]${after}`);
      }
      return out;
    },
  };
}

/** `value` with every string inside it (not object keys) redacted; the same object when nothing was. */
export function redactDeep<T>(value: T, redactor: Redactor): T {
  if (typeof value === 'string') return redactor.redact(value) as T;
  if (Array.isArray(value)) {
    const items = value.map((item) => redactDeep(item, redactor));
    return (items.some((item, i) => item !== value[i]) ? items : value) as T;
  }
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = redactDeep(item, redactor);
      if (out[key] !== item) changed = true;
    }
    return (changed ? out : value) as T;
  }
  return value;
}
