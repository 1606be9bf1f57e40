import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedactor } from '../../core/safety/redaction';

/**
 * What the agent sees of the repository's git metadata (docs/security.md#git-metadata): enough for
 * `git status`, `diff`, `log`, `show` and `blame` — objects, refs, HEAD, the index, `info/`,
 * hooks — and a copy of the config without anything that authenticates: no credential helpers,
 * no `http.*.extraheader`, no `include`/`includeIf` (paths to the owner's files), no `url.*`
 * rewrites, no askpass or ssh command, and remote URLs without their user and password. The
 * reflogs (a clone's first entry names the URL it came from), FETCH_HEAD, the legacy `remotes/`
 * and `branches/` files and anything git does not itself keep there are hidden behind empty ones.
 */

/** Entries of the common git folder the agent may see as they are; `config` and `modules` are shown sanitized. */
const VISIBLE = new Set([
  'HEAD', 'ORIG_HEAD', 'MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'AUTO_MERGE', 'COMMIT_EDITMSG', 'description',
  'hooks', 'index', 'info', 'objects', 'refs', 'packed-refs', 'shallow', 'worktrees', 'commondir', 'sequencer',
  'rebase-merge', 'rebase-apply', 'rr-cache', 'lfs', 'config', 'modules',
]);

/** Config keys dropped whole: what authenticates, or points at the owner's files or programs. */
const DROPPED = [/^credential\./i, /extraheader$/i, /^include\./i, /^includeif\./i, /^url\./i, /^core\.(askpass|sshcommand)$/i, /cookiefile$/i, /\.ssl(key|cert|certpasswordprotected)$/i];

const redactor = createRedactor();

/** A value with any URL's user and password dropped (a remote shows as `https://host/path`), then redacted. */
const clean = (value: string): string => redactor.redact(value.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1'));

function viewDir(): string {
  const dir = join(tmpdir(), `dex-git-view-${process.getuid?.() ?? 'user'}`);
  mkdirSync(join(dir, 'empty'), { recursive: true, mode: 0o700 });
  return dir;
}

/** A git config value in double quotes, as git reads it back. */
const quote = (value: string): string => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`;

/** The config file at `path` without what authenticates, as text git reads. */
export function sanitizedConfig(path: string): string {
  // git reads the file only: with --file, include.* is not followed, and nothing of the repository runs.
  const listed = execFileSync('git', ['config', '--file', path, '--list', '-z'], {
    cwd: '/',
    env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' },
    encoding: 'utf8',
  });
  const sections = new Map<string, string[]>();
  for (const entry of listed.split('\0').filter(Boolean)) {
    const newline = entry.indexOf('\n');
    const key = newline < 0 ? entry : entry.slice(0, newline);
    const value = newline < 0 ? 'true' : entry.slice(newline + 1);
    if (DROPPED.some((pattern) => pattern.test(key))) continue;
    const first = key.indexOf('.');
    const last = key.lastIndexOf('.');
    const section = key.slice(0, first);
    const sub = first === last ? undefined : clean(key.slice(first + 1, last));
    const header = sub === undefined ? `[${section}]` : `[${section} ${quote(sub)}]`;
    const lines = sections.get(header) ?? sections.set(header, []).get(header)!;
    lines.push(`\t${key.slice(last + 1)} = ${quote(clean(value))}`);
  }
  return [...sections].map(([header, lines]) => [header, ...lines].join('\n')).join('\n') + '\n';
}

const written = new Map<string, string>();

/** A file holding the sanitized copy of the config at `path`, kept while its content is the same. */
function sanitizedConfigFile(path: string): string {
  const info = statSync(path);
  const key = `${path}:${info.mtimeMs}:${info.size}`;
  let file = written.get(key);
  if (file && existsSync(file)) return file;
  const text = sanitizedConfig(path);
  file = join(viewDir(), `${createHash('sha256').update(text).digest('hex').slice(0, 24)}.config`);
  writeFileSync(file, text, { mode: 0o600 });
  written.set(key, file);
  return file;
}

/** Configs of submodules under `modules/`, a few levels deep. */
function moduleConfigs(dir: string, depth = 0): string[] {
  if (depth > 4 || !existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (!entry.isDirectory()) return [];
    const path = join(dir, entry.name);
    return [...(existsSync(join(path, 'config')) ? [join(path, 'config')] : []), ...moduleConfigs(join(path, 'modules'), depth + 1), ...moduleConfigs(path, depth + 1)];
  });
}

/**
 * bubblewrap arguments laid over the read-only mount of the common git folder `commonDir` (and
 * this worktree's own git folder `gitDir`), so the agent sees the sanitized view described above.
 */
export function gitViewArgs(commonDir: string, gitDir?: string): string[] {
  const args: string[] = [];
  const empty = join(viewDir(), 'empty');
  for (const entry of readdirSync(commonDir, { withFileTypes: true })) {
    if (VISIBLE.has(entry.name)) continue;
    const path = join(commonDir, entry.name);
    args.push('--ro-bind', entry.isDirectory() ? empty : '/dev/null', path);
  }
  const configs = [join(commonDir, 'config'), ...moduleConfigs(join(commonDir, 'modules'))];
  if (gitDir && existsSync(join(gitDir, 'config.worktree'))) configs.push(join(gitDir, 'config.worktree'));
  for (const config of configs) if (existsSync(config)) args.push('--ro-bind', sanitizedConfigFile(config), config);
  return args;
}
