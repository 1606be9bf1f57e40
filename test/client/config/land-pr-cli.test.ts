import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDex } from '../../support/env/dex-cli';
import { roadmapRepoWithOrigin } from '../../support/plans/landing-fixture';

// `dex run` with `land.mode: pr` (docs/landing-through-prs.md#bad-input), the real binary spawned.
// TEMPORAL_ADDRESS is a dead port: a command that got as far as connecting exits 3, so exit 2
// proves no workflow started; the repository's worktrees and branches show nothing was made.

const root = resolve(__dirname, '..', '..', '..');
const cassette = join(root, 'client', 'demo', 'demo.cassette.jsonl');
let fixtures: string;

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@x', ...args], { cwd, encoding: 'utf8' });

/** A repository named `name` under the fixtures, with a one-task roadmap, `config` and `url` as origin. */
const repoWith = (name: string, config: string, url: string): string => roadmapRepoWithOrigin(join(fixtures, name), config, url);

async function dexRun(repo: string, env: NodeJS.ProcessEnv) {
  const dexHome = mkdtempSync(join(fixtures, 'home-'));
  const run = await runDex(['run', join(repo, 'ROADMAP.md'), '--llm', `replay:${cassette}`], {
    cwd: root,
    timeoutMs: 60_000,
    env: { TEMPORAL_ADDRESS: '127.0.0.1:1', DEX_HOME: dexHome, GITHUB_TOKEN: undefined, GH_TOKEN: undefined, NODE_OPTIONS: undefined, ...env },
  });
  return {
    ...run,
    dexHomeFiles: readdirSync(dexHome),
    worktrees: git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)?.length,
    branches: git(repo, 'branch', '--format=%(refname:short)').trim().split('\n'),
  };
}

beforeAll(() => {
  fixtures = mkdtempSync(join(tmpdir(), 'dex-land-pr-cli-'));
});
afterAll(() => rmSync(fixtures, { recursive: true, force: true }));

describe.concurrent('dex run with land.mode: pr', () => {
  it.each([
    [
      'no forge token where dex runs',
      'land: { remote: origin, mode: pr }\n',
      'https://github.com/octo/hello.git',
      {},
      'dex: dex.config.yaml: land.pr: GITHUB_TOKEN is not set: the forge token dex opens, watches and merges pull requests with (docs/landing-through-prs.md#the-forge-token)\n',
    ],
    [
      'a remote that is not on GitHub',
      'land: { remote: origin, mode: pr }\n',
      '/tmp/x.git',
      { GITHUB_TOKEN: 'ghp_planted000000000000000000' },
      'dex: dex.config.yaml: land.remote origin is /tmp/x.git, not a github.com repository: land.mode pr needs OWNER/REPO on the forge\n',
    ],
    [
      'a forge dex does not speak',
      'land: { remote: origin, mode: pr, pr: { forge: gitlab } }\n',
      'https://gitlab.com/octo/hello.git',
      { GITHUB_TOKEN: 'ghp_planted000000000000000000' },
      'dex: dex.config.yaml: "land.pr.forge" is "gitlab": only github is supported today\n',
    ],
    [
      'a forge CA file that does not exist',
      'land: { remote: origin, mode: pr, pr: { caFile: /nowhere/forge-ca.pem } }\n',
      'https://github.com/octo/hello.git',
      { GITHUB_TOKEN: 'ghp_planted000000000000000000' },
      'dex: dex.config.yaml: land.pr.caFile: /nowhere/forge-ca.pem does not exist (docs/landing-through-prs.md#a-forge-behind-its-own-ca)\n',
    ],
    [
      'a forge CA file with no certificate in it',
      `land: { remote: origin, mode: pr, pr: { caFile: ${join(root, 'package.json')} } }\n`,
      'https://github.com/octo/hello.git',
      { GITHUB_TOKEN: 'ghp_planted000000000000000000' },
      `dex: dex.config.yaml: land.pr.caFile: ${join(root, 'package.json')} holds no PEM certificate (-----BEGIN CERTIFICATE-----) (docs/landing-through-prs.md#a-forge-behind-its-own-ca)\n`,
    ],
    [
      'a forge CA file named by a relative path',
      'land: { remote: origin, mode: pr, pr: { caFile: certs/forge-ca.pem } }\n',
      'https://github.com/octo/hello.git',
      { GITHUB_TOKEN: 'ghp_planted000000000000000000' },
      'dex: dex.config.yaml: "land.pr.caFile" must be the absolute path of the forge\'s CA certificate (PEM)\n',
    ],
  ])('%s: one line, exit 2, no workflow, no worktree, no branch', async (name, config, url, env, line) => {
    const repo = repoWith(name.replace(/\W+/g, '-'), config, url);
    const run = await dexRun(repo, env);
    expect(run.stderr).toBe(line);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.dexHomeFiles).toEqual([]);
    expect(run.worktrees).toBe(1);
    expect(run.branches).toEqual(['main']);
  });

  it('with the token set and a GitHub remote, gets past every input check to the (dead) server', async () => {
    const repo = repoWith('good', 'land: { remote: origin, mode: pr }\n', 'git@github.com:octo/hello.git');
    const run = await dexRun(repo, { GITHUB_TOKEN: 'ghp_planted000000000000000000' });
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/unreachable at 127\.0\.0\.1:1/);
    expect(run.stderr).not.toContain('ghp_planted');
  });

  it('with a forge CA file that holds a certificate, gets past the checks too', async () => {
    const ca = join(fixtures, 'forge-ca.pem');
    writeFileSync(ca, `${rootCertificates[0]}\n`);
    const repo = repoWith('good-ca', `land: { remote: origin, mode: pr, pr: { caFile: ${ca} } }\n`, 'git@github.com:octo/hello.git');
    const run = await dexRun(repo, { GITHUB_TOKEN: 'ghp_planted000000000000000000' });
    expect(run.code, run.stderr).toBe(3);
  });
});
