// The real git behind the fake forge (test/support/forge/fake-forge.ts): git smart HTTP served by git's own
// `git http-backend` as CGI, and merges made in the bare repository with plumbing, as GitHub does
// on its side. Everything here is asynchronous: the fake serves from the test's own process.

import { execFile, spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const IDENTITY = { GIT_AUTHOR_NAME: 'Fake Forge', GIT_AUTHOR_EMAIL: 'forge@example.com', GIT_COMMITTER_NAME: 'Fake Forge', GIT_COMMITTER_EMAIL: 'forge@example.com' };
const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), GIT_CONFIG_NOSYSTEM: '1', ...IDENTITY };

/** Runs git in `cwd` (a bare repository or a checkout); rejects with its stderr on a non-zero exit. */
export function git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: { ...BASE_ENV, ...env }, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      err ? reject(Object.assign(new Error(`git ${args.join(' ')}: ${stderr.trim() || err.message}`), { code: err.code })) : resolve(stdout.trim()),
    );
  });
}

/** git's exit code: for the questions git answers with it (is-ancestor, merge-tree's conflicts). */
const exitCode = (cwd: string, args: string[]) => git(cwd, args).then(() => 0, (err: { code?: unknown }) => (typeof err.code === 'number' ? err.code : 128));

/** The commit `ref` names in `bare`, or undefined when there is no such ref. */
export const revParse = (bare: string, ref: string) => git(bare, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).catch(() => undefined);

/** Whether `ancestor` is in `rev`'s history. */
export const isAncestor = async (bare: string, ancestor: string, rev: string) => (await exitCode(bare, ['merge-base', '--is-ancestor', ancestor, rev])) === 0;

/** The tree of merging `head` into `base`, or undefined when they conflict. */
async function mergedTree(bare: string, base: string, head: string): Promise<string | undefined> {
  return git(bare, ['merge-tree', '--write-tree', base, head]).then((out) => out.split('\n')[0], () => undefined);
}

export const conflicts = async (bare: string, base: string, head: string) => (await mergedTree(bare, base, head)) === undefined;

/**
 * The commit a merge of `head` into `base` by `method` makes, not yet on any branch: a merge commit,
 * one squashed commit, or `head`'s commits replayed onto `base`. Undefined on a conflict.
 */
export async function mergeCommit(bare: string, base: string, head: string, method: string, message: string): Promise<string | undefined> {
  if (method !== 'rebase') {
    const tree = await mergedTree(bare, base, head);
    if (!tree) return undefined;
    const parents = method === 'squash' ? ['-p', base] : ['-p', base, '-p', head];
    return git(bare, ['commit-tree', tree, ...parents, '-m', message]);
  }
  // Replayed by a real `git rebase` in a worktree of the bare repository (merge-tree's --merge-base needs git 2.40).
  const dir = join(await mkdtemp(join(tmpdir(), 'fake-forge-rebase-')), 'work');
  await git(bare, ['worktree', 'add', '-q', '--detach', dir, head]);
  try {
    const rebased = await git(dir, ['rebase', '-q', base]).then(() => true, () => false);
    if (!rebased) await git(dir, ['rebase', '--abort']).catch(() => undefined);
    return rebased ? await git(dir, ['rev-parse', 'HEAD']) : undefined;
  } finally {
    await git(bare, ['worktree', 'remove', '--force', dir]);
    await rm(dirname(dir), { recursive: true, force: true });
  }
}

/** Moves `branch` from `from` to `to`, only if it is still at `from` (git's compare-and-swap). */
export const moveRef = (bare: string, branch: string, to: string, from: string) => git(bare, ['update-ref', `refs/heads/${branch}`, to, from]);

/** Commits `files` onto `branch` of `bare` directly (another person's push; a new branch starts at `from`); returns the new commit. */
export async function commitFiles(bare: string, branch: string, files: Record<string, string>, message: string, from?: string): Promise<string> {
  const tip = await revParse(bare, `refs/heads/${branch}`);
  const parent = tip ?? (from ? await revParse(bare, `refs/heads/${from}`) : undefined);
  const dir = await mkdtemp(join(tmpdir(), 'fake-forge-index-'));
  const env = { GIT_INDEX_FILE: join(dir, 'index') };
  try {
    if (parent) await git(bare, ['read-tree', parent], env);
    for (const [path, content] of Object.entries(files)) {
      await writeFile(join(dir, 'blob'), content);
      const blob = await git(bare, ['hash-object', '-w', join(dir, 'blob')]);
      await git(bare, ['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], env);
    }
    const tree = await git(bare, ['write-tree'], env);
    const commit = await git(bare, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message]);
    await git(bare, ['update-ref', `refs/heads/${branch}`, commit, tip ?? '0'.repeat(40)]);
    return commit;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A fresh checkout of `sha` (a clone sharing `bare`'s objects), for a CI check to run in. */
export async function checkout(bare: string, sha: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'fake-forge-ci-'));
  const dir = join(root, 'checkout');
  await git(root, ['clone', '-q', '--shared', '--no-checkout', bare, dir]);
  await git(dir, ['checkout', '-q', '--detach', sha]);
  return { dir, remove: () => rm(root, { recursive: true, force: true }) };
}

/** A ref update a push asked for. */
export interface RefUpdate {
  old: string;
  sha: string;
  ref: string;
}

/** The ref updates at the start of a `git-receive-pack` request body (pkt-lines up to the flush). */
export function receivedUpdates(body: Buffer, encoding: string | undefined): RefUpdate[] {
  const data = encoding === 'gzip' ? gunzipSync(body) : body;
  const updates: RefUpdate[] = [];
  for (let at = 0; at + 4 <= data.length; ) {
    const length = parseInt(data.subarray(at, at + 4).toString('latin1'), 16);
    if (!length) break;
    const line = data.subarray(at + 4, at + length).toString('utf8').split('\0')[0].trim();
    const [old, sha, ref] = line.split(' ');
    if (ref) updates.push({ old, sha, ref });
    at += length;
  }
  return updates;
}

/**
 * Serves one git smart-HTTP request by running `git http-backend` as CGI over `root` (holding
 * OWNER/REPO.git); resolves with its exit code once the answer is sent.
 */
export function serveGit(req: IncomingMessage, res: ServerResponse, root: string, body: Buffer, path: string, query: string): Promise<number> {
  const env: Record<string, string> = {
    ...BASE_ENV,
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: path,
    QUERY_STRING: query,
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    CONTENT_LENGTH: String(body.length),
    REMOTE_USER: 'fake-forge-user',
    REMOTE_ADDR: '127.0.0.1',
  };
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = String(req.headers['content-encoding']);
  if (req.headers['git-protocol']) env.GIT_PROTOCOL = String(req.headers['git-protocol']);
  return new Promise((resolve) => {
    const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    cgi.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    cgi.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    cgi.stdin.on('error', () => {});
    cgi.stdin.end(body);
    cgi.on('close', (code) => {
      const all = Buffer.concat(out);
      const split = all.indexOf('\r\n\r\n') >= 0 ? all.indexOf('\r\n\r\n') : all.indexOf('\n\n');
      const gap = all[split] === 13 ? 4 : 2;
      if (split < 0) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`git http-backend failed: ${stderr}`);
        return resolve(code ?? 1);
      }
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of all.subarray(0, split).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        const [name, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
        if (name.toLowerCase() === 'status') status = parseInt(value, 10);
        else if (name) headers[name] = value;
      }
      res.writeHead(status, headers).end(all.subarray(split + gap));
      resolve(code ?? 1);
    });
  });
}
