import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDex } from '../../support/env/dex-cli';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';

// `dex task` and `dex run` with --repo naming a forge repository (docs/fleet.md#the-check-at-the-start),
// the real binary spawned against the fake GitHub over HTTPS (its CA through NODE_EXTRA_CA_CERTS).
// TEMPORAL_ADDRESS is a dead port: a command that got as far as connecting would exit 3, so exit 2
// proves no workflow started; an empty DEX_HOME shows nothing was left behind.

const TOKEN = 'forge-cli-token-0123456789-abc';
let forge: FakeForge;
let fixtures: string;
let origin: string;
let host: string;

beforeAll(async () => {
  forge = await startFakeForge({ token: TOKEN });
  origin = new URL(forge.remoteUrl).origin;
  host = new URL(forge.remoteUrl).host;
  fixtures = mkdtempSync(join(tmpdir(), 'dex-forge-repo-cli-'));
  writeFileSync(join(fixtures, 'ROADMAP.md'), '- [ ] T1: Add a sum function\n');
});
afterAll(async () => {
  await forge.close();
  rmSync(fixtures, { recursive: true, force: true });
});

/** Runs `dex …args` in the fixtures folder with a fresh, empty DEX_HOME and `env` over a forge-free environment. */
async function dex(args: string[], env: NodeJS.ProcessEnv) {
  const dexHome = mkdtempSync(join(fixtures, 'home-'));
  const run = await runDex(args, {
    cwd: fixtures,
    timeoutMs: 60_000,
    env: {
      TEMPORAL_ADDRESS: '127.0.0.1:1', DEX_HOME: dexHome, NODE_EXTRA_CA_CERTS: forge.caFile, NODE_OPTIONS: undefined,
      GITHUB_TOKEN: undefined, GH_TOKEN: undefined, DEX_FORGE_API_URL: `${origin}/api/v3`, DEX_FORGE_TOKEN_ENV: undefined, ...env,
    },
  });
  return { ...run, dexHomeFiles: readdirSync(dexHome) };
}

/** A refusal: its name, the command line (URL/ stands for the fake forge's https origin), the environment, the line. */
type Refusal = [string, string[], NodeJS.ProcessEnv, () => string];

describe.concurrent('a forge repository as --repo', () => {
  it.each<Refusal>([
    ['no token where dex runs', ['task', 'Fix it', '--repo', 'octo/demo'], {}, () => `--repo octo/demo: dex needs a token in GITHUB_TOKEN to reach octo/demo on ${host}`],
    ['no token, a github.com URL', ['task', 'Fix it', '--repo', 'https://github.com/octo/demo'], { DEX_FORGE_API_URL: undefined },
      () => '--repo https://github.com/octo/demo: dex needs a token in GITHUB_TOKEN to reach octo/demo on github.com'],
    ['a token the forge refuses', ['task', 'Fix it', '--repo', 'URL/octo/demo'], { GITHUB_TOKEN: 'wrong-token-000000000000' },
      () => `--repo ${origin}/octo/demo: ${host} refused the token in GITHUB_TOKEN for octo/demo (HTTP 401: Bad credentials)`],
    ['a repository the forge does not have', ['run', 'ROADMAP.md', '--repo', 'octo/nothing-here'], { GITHUB_TOKEN: TOKEN },
      () => `--repo octo/nothing-here: octo/nothing-here was not found on ${host} (HTTP 404: it does not exist, or the token in GITHUB_TOKEN cannot read it)`],
    ['the token in another variable, not set', ['run', 'ROADMAP.md', '--repo', 'octo/demo'], { DEX_FORGE_TOKEN_ENV: 'FLEET_TOKEN', GITHUB_TOKEN: TOKEN },
      () => `--repo octo/demo: dex needs a token in FLEET_TOKEN to reach octo/demo on ${host}`],
    ['a token in the URL', ['task', 'Fix it', '--repo', `https://x-access-token:${TOKEN}@github.com/octo/demo`], { GITHUB_TOKEN: TOKEN },
      () => "--repo https://***@github.com/octo/demo: a forge repository's URL may not carry a user or token: dex reads the token from GITHUB_TOKEN on the worker"],
    ['an API root over plain http', ['task', 'Fix it', '--repo', 'octo/demo'], { DEX_FORGE_API_URL: 'FAKE_HTTP_API', GITHUB_TOKEN: TOKEN },
      () => "DEX_FORGE_API_URL must be the forge API's https URL, such as https://github.example.com/api/v3"],
  ])('%s: one line naming it, exit 2, nothing started or left', async (_name, args, env, line) => {
    const run = await dex(args.map((a) => a.replace(/^URL/, origin)), { ...env, ...(env.DEX_FORGE_API_URL === 'FAKE_HTTP_API' ? { DEX_FORGE_API_URL: forge.apiUrl } : {}) });
    expect(run.stderr).toBe(`dex: ${line()}\n`);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.dexHomeFiles).toEqual([]);
    expect(run.stderr).not.toContain(TOKEN);
  });

  it("dex run: the roadmap is read at the forge's default branch: one not there, or outside the repository, is one line (exit 2) with nothing left; one there gets past every check", async () => {
    const env = { GITHUB_TOKEN: TOKEN, DEX_FORGE_CA_FILE: forge.caFile, ANTHROPIC_API_KEY: 'test-key' };
    const missing = await dex(['run', 'PLAN.md', '--repo', `${origin}/octo/demo.git`], env);
    expect(missing.stderr).toBe("dex: roadmap not found: PLAN.md is not on octo/demo's main\n");
    expect(missing.code).toBe(2);
    expect(missing.dexHomeFiles).toEqual([]);
    const outside = await dex(['run', '../ROADMAP.md', '--repo', 'octo/demo'], env);
    expect(outside.stderr).toBe('dex: with --repo on a forge, the roadmap is a path inside the repository (such as ROADMAP.md), not "../ROADMAP.md"\n');
    expect(outside.code).toBe(2);
    expect(outside.dexHomeFiles).toEqual([]);
    const badLlm = await dex(['run', 'ROADMAP.md', '--repo', 'octo/demo', '--llm', 'nonsense'], env);
    expect(badLlm.code).toBe(2);
    expect(badLlm.dexHomeFiles).toEqual([]);
    await forge.commit('main', { 'ROADMAP.md': '- [ ] T1: Add a sum function\n' });
    // Past the checks it connects to the Temporal server, which this test's address does not have: exit 3, not 2.
    const found = await dex(['run', 'ROADMAP.md', '--repo', 'octo/demo'], env);
    expect(found.code, found.stderr).toBe(3);
    expect(found.stderr).toContain('1 task in ROADMAP.md, landing on main');
  });

  it("dex task: a forge whose CA the workers' git is not told of is one line (exit 2); told through DEX_FORGE_CA_FILE, the task gets past every check", async () => {
    const untrusted = await dex(['task', 'Fix it', '--repo', 'octo/demo'], { GITHUB_TOKEN: TOKEN, ANTHROPIC_API_KEY: 'test-key' });
    expect(untrusted.stderr).toMatch(new RegExp(`^dex: --repo octo/demo: ${host.replace(/\./g, '\\.')}'s certificate did not verify for octo/demo \\(git: .*\\)\n$`));
    expect(untrusted.code).toBe(2);
    // Past the checks it connects to the Temporal server, which this test's address does not have: exit 3, not 2.
    const noModel = await dex(['task', 'Fix it', '--repo', 'octo/demo'], { GITHUB_TOKEN: TOKEN, DEX_FORGE_CA_FILE: forge.caFile, ANTHROPIC_API_KEY: undefined });
    expect(noModel.code).toBe(2);
    expect(noModel.dexHomeFiles).toEqual([]);
    const told = await dex(['task', 'Fix it', '--repo', 'octo/demo'], { GITHUB_TOKEN: TOKEN, DEX_FORGE_CA_FILE: forge.caFile, ANTHROPIC_API_KEY: 'test-key' });
    expect(told.code, told.stderr).toBe(3);
    const relative = await dex(['task', 'Fix it', '--repo', 'octo/demo'], { GITHUB_TOKEN: TOKEN, DEX_FORGE_CA_FILE: 'ca.pem' });
    expect(relative.stderr).toBe('dex: DEX_FORGE_CA_FILE must be an absolute path (the workers read it), not "ca.pem"\n');
    expect(relative.code).toBe(2);
  });

  it('takes an existing folder named like OWNER/NAME as the local path it is', async () => {
    mkdirSync(join(fixtures, 'octo', 'folder'), { recursive: true });
    const run = await dex(['task', 'Fix it', '--repo', 'octo/folder'], { GITHUB_TOKEN: TOKEN });
    expect(run.stderr).toBe(`dex: not a git repository: ${join(fixtures, 'octo', 'folder')}\n`);
    expect(run.code).toBe(2);
  });
});
