import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseForgeRepository, type ForgeRepository } from '../../../core/fleet/repo-locator';
import { ensureMirror, mirrorGitCommand, mirrorPath } from '../../../host/git/repo-mirror';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';
import { git } from '../../support/forge/fake-forge-git';

// A worker's bare mirror of a forge repository (host/git/repo-mirror.ts) against the fake GitHub,
// whose git over HTTPS takes only the token (gitAuth) and whose certificate only the test trusts
// (caFile): made, fetched again, made once for two callers, and the token nowhere it would stay.
const TOKEN = 'mirror-token-0123456789-abcdef';
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');

let forge: FakeForge;
let dir: string;
let repo: (name?: string) => ForgeRepository;

beforeAll(async () => {
  forge = await startFakeForge({ token: TOKEN, gitAuth: true });
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-mirror-')));
  repo = (name = forge.repo) => parseForgeRepository(`${new URL(forge.remoteUrl).origin}/${forge.owner}/${name}`, { tokenEnv: 'GITHUB_TOKEN' })!;
});
afterAll(async () => {
  await forge.close();
  rmSync(dir, { recursive: true, force: true });
});

const homeCount = { n: 0 };
const newHome = () => join(dir, `home-${(homeCount.n += 1)}`);
const reach = (dexHome: string, token = TOKEN) => ({ dexHome, env: { ...process.env, GITHUB_TOKEN: token }, caFile: forge.caFile });
/** Every ref of a bare repository, `sha ref` a line. */
const refs = (bare: string) => git(bare, ['for-each-ref', '--format=%(objectname) %(refname)']);
/** The failure `promise` ends with. */
const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('it succeeded'), (err: ApplicationFailure) => err);

/** Every file under `root`, as paths relative to it. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((p) => statSync(join(root, p)).isFile());
}

describe('a mirror of a forge repository', () => {
  it('is cloned the first time into DEX_HOME/mirrors/HOST/OWNER/NAME.git, then fetched: a new commit, a hidden ref, a deleted branch', async () => {
    const dexHome = newHome();
    const first = await ensureMirror(repo(), reach(dexHome));
    const host = new URL(forge.remoteUrl).host.replace(':', '_');
    expect(first).toEqual({ path: join(dexHome, 'mirrors', host, 'octo', 'demo.git'), created: true });
    expect(await git(first.path, ['rev-parse', '--is-bare-repository'])).toBe('true');
    expect(await refs(first.path)).toBe(await refs(forge.bare));
    expect(await git(first.path, ['symbolic-ref', 'HEAD'])).toBe('refs/heads/main');
    expect(readdirSync(join(dexHome, 'mirrors', host, 'octo'))).toEqual(['demo.git']);

    const next = await forge.commit('main', { 'next.txt': 'next\n' });
    await forge.commit('gone', { 'g.txt': 'g\n' });
    await git(forge.bare, ['update-ref', 'refs/dex/runs/task-demo-1', next]);
    expect((await ensureMirror(repo(), reach(dexHome))).created).toBe(false);
    expect(await git(first.path, ['rev-parse', 'refs/heads/main'])).toBe(next);
    expect(await git(first.path, ['rev-parse', 'refs/dex/runs/task-demo-1'])).toBe(next);

    await git(forge.bare, ['branch', '-D', 'gone']);
    await ensureMirror(repo(), reach(dexHome));
    expect(await refs(first.path)).toBe(await refs(forge.bare));
  });

  it('is made once when two tasks of one worker ask at once: the second waits, then fetches', async () => {
    const dexHome = newHome();
    const before = forge.requests.length;
    const both = await Promise.all([ensureMirror(repo(), reach(dexHome)), ensureMirror(repo(), reach(dexHome))]);
    expect(both.map((m) => m.created).sort()).toEqual([false, true]);
    // The forge sent the objects once: the second fetch found the mirror current and asked for none.
    const fetches = forge.requests.slice(before).filter((r) => r.url.endsWith('/git-upload-pack') && r.body.includes('command=fetch'));
    expect(fetches).toHaveLength(1);
    expect(both[0].path).toBe(both[1].path);
    // No staging folder and no lock left beside it.
    expect(readdirSync(join(both[0].path, '..'))).toEqual(['demo.git']);
    expect(await refs(both[0].path)).toBe(await refs(forge.bare));
  });

  it('keeps the token in no file of the mirror, no argument git gets and no config: only in the environment of the one command', async () => {
    const dexHome = newHome();
    const { path } = await ensureMirror(repo(), reach(dexHome));
    // The fake forge took the token as git sends it over HTTPS: Basic, with the token as password.
    expect(forge.requests.some((r) => r.url.startsWith('/octo/demo.git/') && r.headers.authorization === `Basic ${BASIC}`)).toBe(true);
    const holding = filesUnder(dexHome).filter((p) => {
      const text = readFileSync(join(dexHome, p)).toString('latin1');
      return text.includes(TOKEN) || text.includes(BASIC);
    });
    expect(holding).toEqual([]);
    expect(filesUnder(path).map((p) => relative(path, join(path, p)))).toContain('config');
    expect(await git(path, ['config', '--list', '--show-origin'])).not.toMatch(/extraheader|x-access-token|sslcainfo/i);

    const command = mirrorGitCommand(repo(), ['fetch', repo().gitUrl], TOKEN, { caFile: forge.caFile });
    expect(command.args.join(' ')).not.toContain(TOKEN);
    expect(command.args.join(' ')).not.toContain(BASIC);
    expect(command.args).toContain('protocol.allow=never');
    expect(command.args).toContain('protocol.https.allow=always');
    expect(command.args).toContain('credential.helper=');
    const origin = `https://${repo().host}/`;
    expect(Object.fromEntries(Object.entries(command.env).filter(([name]) => /^GIT_CONFIG_(COUNT|KEY|VALUE)/.test(name)))).toEqual({
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: `http.${origin}.extraHeader`,
      GIT_CONFIG_VALUE_0: `Authorization: Basic ${BASIC}`,
      GIT_CONFIG_KEY_1: `http.${origin}.sslCAInfo`,
      GIT_CONFIG_VALUE_1: forge.caFile,
    });
    // dex's environment allowlist still holds: nothing of the worker's but it and the settings.
    expect(command.env.GITHUB_TOKEN).toBeUndefined();
  });

  it('fails without retry on a token the forge refuses or a repository it does not have, leaving no mirror', async () => {
    const dexHome = newHome();
    const refused = await failure(ensureMirror(repo(), reach(dexHome, 'wrong-token-00000000000')));
    expect([refused.type, refused.nonRetryable]).toEqual(['ForgeAuth', true]);
    expect(refused.message).toMatch(new RegExp(`^${repo().host.replace(/\./g, '\\.')} refused the token in GITHUB_TOKEN for octo/demo \\(git: fatal: `));
    expect(refused.message).not.toContain('wrong-token');

    const missing = await failure(ensureMirror(repo('nothing-here'), reach(dexHome)));
    expect([missing.type, missing.nonRetryable]).toEqual(['ForgeNotFound', true]);
    expect(missing.message).toMatch(/^octo\/nothing-here was not found on .* \(git: fatal: repository '.*' not found; it does not exist, or the token in GITHUB_TOKEN cannot read it\)$/);

    const noToken = await failure(ensureMirror(repo(), { dexHome, env: {} }));
    expect([noToken.type, noToken.nonRetryable]).toEqual(['ForgeAuth', true]);
    expect(existsSync(mirrorPath(dexHome, repo()))).toBe(false);
    expect(readdirSync(join(mirrorPath(dexHome, repo()), '..'))).toEqual([]);
  });

  it("does not retry a certificate the worker does not trust, and retries a forge out of reach", async () => {
    const dexHome = newHome();
    const untrusted = await failure(ensureMirror(repo(), { dexHome, env: { GITHUB_TOKEN: TOKEN } }));
    expect([untrusted.type, untrusted.nonRetryable]).toEqual(['ForgeUntrusted', true]);
    expect(untrusted.message).toMatch(/certificate did not verify for octo\/demo \(git: fatal: .*certificate/i);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const away = await failure(ensureMirror({ ...repo(), host, gitUrl: `https://${host}/octo/demo.git` }, reach(dexHome)));
    expect([away.type, away.nonRetryable]).toEqual(['ForgeUnavailable', false]);
    expect(away.message).toMatch(/^git could not fetch octo\/demo from 127\.0\.0\.1:\d+ \(fatal: unable to access .*Failed to connect/);
    expect(readdirSync(join(dexHome, 'mirrors'), { recursive: true }).filter((p) => String(p).endsWith('.git'))).toEqual([]);
  });
});
