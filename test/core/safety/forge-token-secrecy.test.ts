import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDexConfig } from '../../../client/config/config-file';
import { dexDataConverter } from '../../../client/server/payload-codec';
import { DEFAULT_SANDBOX } from '../../../core/safety/sandbox-policy';
import { isSecretName, secretValues } from '../../../host/secrets/secret-values';
import { runAgentCommand } from '../../../host/sandbox/run-agent-command';
import { hostDeps } from '../../../worker/start-worker';

// The forge token of `land.mode: pr` (docs/landing-through-prs.md#the-forge-token) lives in the
// worker's environment only: whatever it is called, the one redaction step hides its value from
// the store and from history, and no sandboxed command ever sees it. Planted values are opaque
// (not ghp_…), so what hides them is their variable's name, not the shape of GitHub's tokens.
// The end-to-end grep over a PR-landed run's store and history follows the workflow (issue 40).

const PLANTED = { GITHUB_TOKEN: 'forge-planted-github-0001', GH_TOKEN: 'forge-planted-gh-0002', ACME_FORGE_TOKEN: 'forge-planted-acme-0003' };
const planted = Object.values(PLANTED);
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'dex-forge-token-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the forge token is a secret to the redaction step', () => {
  it.each(['GITHUB_TOKEN', 'GH_TOKEN', 'GH_ENTERPRISE_TOKEN', 'ACME_FORGE_TOKEN', 'FORGE_PAT'])('land.pr.tokenEnv %s is accepted, and its value is redacted', (name) => {
    const land = parseDexConfig(`land: { remote: origin, mode: pr, pr: { tokenEnv: ${name} } }\n`, '/r').land;
    expect(land?.pr?.tokenEnv).toBe(name);
    expect(secretValues({ [name]: 'forge-planted-value' })).toEqual([{ name, value: 'forge-planted-value' }]);
  });

  it('refuses a tokenEnv whose value dex would not redact', () => {
    for (const name of ['FORGE', 'GITHUB', 'SSH_AUTH_SOCK']) expect(isSecretName(name)).toBe(false);
    expect(() => parseDexConfig('land: { remote: origin, mode: pr, pr: { tokenEnv: FORGE } }\n', '/r')).toThrow('is not named like a secret');
  });

  it("keeps the planted values out of what a worker stores and sends to the server's history", async () => {
    const dexHome = join(root, 'home');
    const deps = await hostDeps(dexHome, { ...PLANTED, DEX_STORE: undefined, ANTHROPIC_API_KEY: 'test-key' });
    try {
      // What a forge activity could hand on: a failing check's log that echoed the token, an error message.
      const log = `Run gh api -H "Authorization: token ${PLANTED.GITHUB_TOKEN}"\nGH_TOKEN=${PLANTED.GH_TOKEN}\n${PLANTED.ACME_FORGE_TOKEN}\n`;
      await deps.store.putArtifact('land/t1/check-log', 'check-log', log);
      const stored = (await deps.store.getArtifact('land/t1/check-log'))!.content;
      for (const value of planted) expect(stored).not.toContain(value);
      expect(stored).toContain('[REDACTED:GH_TOKEN]');
      expect(stored).toContain('[REDACTED:ACME_FORGE_TOKEN]');

      const [payload] = await dexDataConverter(undefined, deps.redactor).payloadCodecs![0].encode([
        { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify({ excerpt: log })) },
      ]);
      const sent = Buffer.from(payload.data!).toString('utf8');
      for (const value of planted) expect(sent).not.toContain(value);
    } finally {
      await deps.store.close();
    }
  });
});

describe('no sandboxed command sees the forge token', () => {
  let worktree: string;
  const saved: Record<string, string | undefined> = {};

  beforeAll(() => {
    const repo = join(root, 'repo');
    worktree = join(root, 'worktrees', 'wt');
    execFileSync('mkdir', ['-p', repo]);
    writeFileSync(join(repo, 'README.md'), '# r\n');
    const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@x', ...args], { cwd, stdio: 'ignore' });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'init');
    git(repo, 'worktree', 'add', '-q', '-b', 'task', worktree);
    for (const [name, value] of Object.entries({ ...PLANTED, DEX_FORGE_TEST_CONTROL: 'control-value-passed' })) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("with the token in the worker's environment, the agent's command sees neither its name nor its value", async () => {
    const result = await runAgentCommand('env; cat /proc/1/environ | tr "\\0" "\\n"; git config --list --show-origin', worktree, { ...DEFAULT_SANDBOX, env: ['DEX_FORGE_TEST_CONTROL'] }, {
      timeoutMs: 30_000,
      outputLimitBytes: 1_000_000,
    });
    // The control: a variable the policy passes is seen, so the command's environment was read.
    expect(result.output).toContain('DEX_FORGE_TEST_CONTROL=control-value-passed');
    for (const value of planted) expect(result.output).not.toContain(value);
    expect(result.output).not.toMatch(/GITHUB_TOKEN|GH_TOKEN|ACME_FORGE_TOKEN/);
  });

  it('and land.mode pr refuses a sandbox.env or setup.env that names it', () => {
    expect(() => parseDexConfig('land: { remote: origin, mode: pr }\nsandbox: { env: [GITHUB_TOKEN] }\n', '/r')).toThrow('"sandbox.env" may not pass GITHUB_TOKEN');
    expect(() => parseDexConfig('land: { remote: origin, mode: pr, pr: { tokenEnv: ACME_FORGE_TOKEN } }\nsetup: { env: [ACME_FORGE_TOKEN] }\n', '/r')).toThrow('"setup.env" may not pass ACME_FORGE_TOKEN');
  });
});
