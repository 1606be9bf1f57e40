// A worker's bare mirror of a forge repository (docs/fleet.md#the-mirror), at
// <DEX_HOME>/mirrors/<host>/<owner>/<name>.git: made the first time a task on this worker needs the
// repository, fetched each time after; tasks' worktrees are made from it. Only the worker's own git
// reaches the forge, with the token for that one command: in GIT_CONFIG_COUNT/KEY/VALUE, git's
// command-line settings by environment, so the token is in no argv (`ps`), no config file and
// nothing the mirror keeps. The sandbox never sees the mirror's transport: it mounts a worktree
// and its git metadata, which hold no token (docs/security.md#git-metadata).
//
// What the mirror holds: the forge's branches (refs/heads/*), tags and hidden refs (refs/dex/*),
// pruned to the forge's, but refs/heads/dex/*: those are this worker's task branches (`dex/<workflow
// id>`), which a fetch must neither overwrite nor prune while a worktree has one checked out.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { FAILURE } from '../../core/run/failure-types';
import { forgeToken, type ForgeReach } from '../forge/forge-repository';
import { removeTree } from '../worktree/remove-tree';
import { dexGitConfig, dexGitEnv, dexGitSync } from './dex-git';
import { withMirrorLock } from './mirror-lock';

/** What a fetch brings: every branch but the worker's own task branches, the tags, and dex's hidden refs, each forced to the forge's. */
const REFSPECS = ['+refs/heads/*:refs/heads/*', '^refs/heads/dex/*', '+refs/tags/*:refs/tags/*', '+refs/dex/*:refs/dex/*'];
/** One git command's limit: a forge that stops answering is retried, not waited on. @default 10 minutes */
const GIT_TIMEOUT_MS = 10 * 60_000;

/** How a mirror's git reaches the forge, and where the mirrors live. */
interface MirrorOptions extends ForgeReach {
  /** The worker's DEX_HOME: mirrors live in its `mirrors/` folder. */
  dexHome: string;
  /** @default 10 minutes */
  timeoutMs?: number;
}

/** Where the mirror of `repo` lives under `dexHome` (names lower-cased: GitHub's are case-blind). */
export function mirrorPath(dexHome: string, repo: ForgeRepository): string {
  const host = repo.host.toLowerCase().replace(/[^\w.-]/g, '_');
  return join(dexHome, 'mirrors', host, repo.owner.toLowerCase(), `${repo.repo.toLowerCase()}.git`);
}

/**
 * The argv and environment of git `args` against `repo`: dex's settings (no hooks, fsmonitor or
 * transport but https; no credential helper or askpass, so the only credential is dex's), and the
 * token as an Authorization header for the forge's URLs only, in the environment. `caFile`: the
 * forge's CA, for these URLs too.
 */
export function mirrorGitCommand(repo: ForgeRepository, args: string[], token: string, reach: ForgeReach = {}): { args: string[]; env: Record<string, string> } {
  const settings = [...dexGitConfig(), 'protocol.https.allow=always', 'credential.helper=', 'core.askPass='];
  const forgeUrl = `https://${repo.host}/`;
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  const byEnvironment: [string, string][] = [[`http.${forgeUrl}.extraHeader`, `Authorization: Basic ${basic}`]];
  if (reach.caFile) byEnvironment.push([`http.${forgeUrl}.sslCAInfo`, reach.caFile]);
  const env: Record<string, string> = { ...dexGitEnv(reach.env), GIT_CONFIG_COUNT: String(byEnvironment.length) };
  byEnvironment.forEach(([key, value], i) => Object.assign(env, { [`GIT_CONFIG_KEY_${i}`]: key, [`GIT_CONFIG_VALUE_${i}`]: value }));
  return { args: [...settings.flatMap((setting) => ['-c', setting]), ...args], env };
}

/** The failure git `verb`'s `stderr` stands for: auth, a missing repository and an untrusted certificate never retry; the rest (network, timeouts) does. */
function gitFailure(repo: ForgeRepository, verb: string, stderr: string, token: string): ApplicationFailure {
  const name = `${repo.owner}/${repo.repo}`;
  const lines = stderr.split(token).join(`[REDACTED:${repo.tokenEnv}]`).split('\n').map((l) => l.trim()).filter(Boolean);
  const said = lines.filter((l) => /^(fatal|error):/.test(l)).at(-1) ?? lines.at(-1) ?? 'no output';
  if (/authentication failed|could not read (username|password)|returned error: 40[13]|HTTP 40[13]/i.test(stderr)) {
    return ApplicationFailure.create({ type: FAILURE.ForgeAuth, nonRetryable: true, message: `${repo.host} refused the token in ${repo.tokenEnv} for ${name} (git: ${said})` });
  }
  if (/repository '.*' not found|returned error: 404|HTTP 404/i.test(stderr)) {
    return ApplicationFailure.create({
      type: FAILURE.ForgeNotFound,
      nonRetryable: true,
      message: `${name} was not found on ${repo.host} (git: ${said}; it does not exist, or the token in ${repo.tokenEnv} cannot read it)`,
    });
  }
  if (/SSL certificate problem|certificate verification failed/i.test(stderr)) {
    // A CA the worker does not trust stays untrusted until someone names it (the forge's CA file): retrying cannot mend it.
    return ApplicationFailure.create({ type: FAILURE.ForgeUntrusted, nonRetryable: true, message: `${repo.host}'s certificate did not verify for ${name} (git: ${said})` });
  }
  return ApplicationFailure.create({ type: FAILURE.ForgeUnavailable, message: `git could not ${verb} ${name} ${verb === 'push' ? 'to' : 'from'} ${repo.host} (${said})` });
}

/** Runs git `args` in `cwd` against `repo`; its stdout, or the failure its stderr stands for. */
function forgeGit(repo: ForgeRepository, cwd: string, args: string[], token: string, options: ForgeReach & { timeoutMs?: number }): Promise<string> {
  const command = mirrorGitCommand(repo, args, token, options);
  const timeout = options.timeoutMs ?? GIT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    execFile('git', command.args, { cwd, env: command.env, timeout, killSignal: 'SIGKILL', maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const killed = (err as { killed?: boolean }).killed ? `git took longer than ${Math.round(timeout / 1000)} s and was stopped\n` : '';
      reject(gitFailure(repo, args.find((a) => a === 'push') ? 'push' : 'fetch', `${stderr}\n${killed}`, token));
    });
  });
}

/** Git that works on a mirror (or a worktree of one) and reaches `repo`'s forge as the mirror does; `config` (`key=value`) added to each command. */
export function forgeGitIn(repo: ForgeRepository, cwd: string, reach: ForgeReach = {}, config: string[] = []): { raw(args: string[]): Promise<string> } {
  const token = forgeToken(repo, reach.env);
  return { raw: (args) => forgeGit(repo, cwd, [...config.flatMap((c) => ['-c', c]), ...args], token, reach) };
}

/** Fetches the forge's refs into the mirror at `path` (REFSPECS), pruning what the forge no longer has. */
const fetchInto = (repo: ForgeRepository, path: string, token: string, options: MirrorOptions) =>
  forgeGit(repo, path, ['fetch', '--quiet', '--prune', '--no-tags', repo.gitUrl, ...REFSPECS], token, options);

/**
 * Makes the mirror in a staging folder beside `path` and renames it into place, so no half-made
 * mirror is ever at `path`; false when another made it meanwhile (a lock taken over from a holder
 * wrongly thought gone), whose mirror is kept.
 */
async function cloneInto(repo: ForgeRepository, path: string, token: string, options: MirrorOptions): Promise<boolean> {
  const staging = `${path}.staging-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    // No template: a mirror has no sample hooks (none would run: dex's git points hooksPath elsewhere).
    dexGitSync(dirname(path), ['init', '--quiet', '--bare', '--template=', staging]);
    await fetchInto(repo, staging, token, options);
    // HEAD follows the forge's default branch, so a worktree made without a commit starts where the forge's does.
    const head = /^ref: (refs\/heads\/\S+)\tHEAD$/m.exec(await forgeGit(repo, staging, ['ls-remote', '--symref', repo.gitUrl, 'HEAD'], token, options));
    if (head) dexGitSync(staging, ['symbolic-ref', 'HEAD', head[1]]);
    return await rename(staging, path).then(
      () => true,
      (err: { code?: unknown }) => {
        if ((err.code === 'ENOTEMPTY' || err.code === 'EEXIST') && existsSync(path)) return false;
        throw err;
      },
    );
  } finally {
    if (existsSync(staging)) await removeTree(staging);
  }
}

/**
 * The bare mirror of `repo` under `options.dexHome`, made on first use and fetched on every later
 * one; `created` says which. Two calls at once on one worker make one mirror: the second waits
 * for the first, then fetches. Fails as the forge's answer does (`ForgeAuth`, `ForgeNotFound`
 * without retry; `ForgeUnavailable` retried).
 */
export async function ensureMirror(repo: ForgeRepository, options: MirrorOptions): Promise<{ path: string; created: boolean }> {
  const token = forgeToken(repo, options.env);
  const path = mirrorPath(options.dexHome, repo);
  await mkdir(dirname(path), { recursive: true });
  return withMirrorLock(`${path}.lock`, async () => {
    // A staging folder left by a worker killed mid-clone: nobody else works on it while the lock is held.
    for (const name of await readdir(dirname(path))) {
      if (name.startsWith(`${basename(path)}.staging-`)) await removeTree(join(dirname(path), name));
    }
    if (existsSync(path)) {
      await fetchInto(repo, path, token, options);
      return { path, created: false };
    }
    return { path, created: await cloneInto(repo, path, token, options) };
  });
}
