import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDexConfig } from '../../../client/config/config-file';
import { forgeRepository } from '../../../client/config/pull-request-config';
import { buildRoadmapInput } from '../../../client/requests/roadmap-request';
import { readSettings } from '../../../client/settings';
import { InvalidInput } from '../../../core/run/invalid-input';
import { roadmapRepoWithOrigin } from '../../support/plans/landing-fixture';

describe('land: in dex.config.yaml', () => {
  it('reads a remote to push to', () => {
    expect(parseDexConfig('land: { remote: origin, branch: main, mode: push, finalizeAttempts: 3 }\n', '/r').land).toEqual({
      remote: 'origin', branch: 'main', mode: 'push', finalizeAttempts: 3,
    });
    expect(parseDexConfig('', '/r').land).toBeUndefined();
  });

  it('reads branch mode and a landCommand to run after the push', () => {
    expect(parseDexConfig('land: { remote: origin, mode: branch }\nlandCommand: gh pr create --fill\n', '/r').land).toEqual({
      remote: 'origin', mode: 'branch', command: 'gh pr create --fill',
    });
    expect(parseDexConfig('land: { remote: origin, branch: develop, mode: branch }\n', '/r').land).toEqual({ remote: 'origin', branch: 'develop', mode: 'branch' });
  });

  it.each([
    ['land: { remote: origin, mode: merge }', 'land.mode'],
    ['land: { remote: "-x" }', 'land.remote'],
    ['land: { branch: main }', 'land.remote'],
    ['land: { remote: origin, force: true }', 'land.force'],
    ['land: { finalizeAttempts: 0 }', 'land.finalizeAttempts'],
    ['landCommand: "gh pr create"', 'landCommand'],
    ['land: { remote: origin, mode: push }\nlandCommand: "gh pr create"', 'landCommand'],
    ['land: { remote: origin }\nlandCommand: "gh pr create"', 'landCommand'],
    ['land: { remote: origin, mode: branch }\nlandCommand: "  "', 'landCommand'],
    ['land: { mode: branch }', 'land.remote'],
  ])('refuses %s, naming %s', (yaml, key) => {
    expect(() => parseDexConfig(`${yaml}\n`, '/r')).toThrow(key);
  });
});

const PR_DEFAULTS = { forge: 'github', tokenEnv: 'GITHUB_TOKEN', profile: 'auto', fixAttempts: 2, ciTimeoutMinutes: 1440, mergeMethod: 'merge' };

describe('land.mode: pr in dex.config.yaml (docs/landing-through-prs.md#configuration)', () => {
  it('fills every default from `mode: pr` alone', () => {
    expect(parseDexConfig('land: { remote: origin, mode: pr }\n', '/r').land).toEqual({ remote: 'origin', mode: 'pr', pr: PR_DEFAULTS });
  });

  it('reads every key', () => {
    const yaml = [
      'land:',
      '  remote: origin',
      '  branch: develop',
      '  mode: pr',
      '  pr: { forge: github, tokenEnv: GH_TOKEN, profile: review, checks: [build, test], fixAttempts: 0, ciTimeoutMinutes: 90, mergeMethod: squash, apiUrl: "https://ghe.example.com/api/v3/", caFile: /etc/dex/ghe-ca.pem }',
    ].join('\n');
    expect(parseDexConfig(`${yaml}\n`, '/r').land).toEqual({
      remote: 'origin',
      branch: 'develop',
      mode: 'pr',
      pr: { forge: 'github', tokenEnv: 'GH_TOKEN', profile: 'review', checks: ['build', 'test'], fixAttempts: 0, ciTimeoutMinutes: 90, mergeMethod: 'squash', apiUrl: 'https://ghe.example.com/api/v3', caFile: '/etc/dex/ghe-ca.pem' },
    });
  });

  it.each([
    ['land: { remote: origin, mode: pr, pr: { forge: gitlab } }', '"land.pr.forge" is "gitlab": only github is supported today'],
    ['land: { remote: origin, mode: pr, pr: { labels: [dex] } }', '"land.pr.labels" is not a known key'],
    ['land: { remote: origin, mode: pr }\nlandCommand: gh pr create --fill', '"landCommand" is for land.mode branch: with mode pr dex opens and merges the pull request itself'],
    ['land: { remote: origin, mode: branch, pr: { profile: auto } }', '"land.pr" needs land.mode: pr'],
    ['land: { mode: pr }', '"land.remote" is needed'],
    ['land: { remote: origin, mode: pr, pr: [github] }', '"land.pr" must be a map'],
    ['land: { remote: origin, mode: pr, pr: { profile: yolo } }', '"land.pr.profile" must be auto or review'],
    ['land: { remote: origin, mode: pr, pr: { mergeMethod: fast-forward } }', '"land.pr.mergeMethod" must be merge or squash or rebase'],
    ['land: { remote: origin, mode: pr, pr: { fixAttempts: -1 } }', '"land.pr.fixAttempts" must be a whole number of 0 or more'],
    ['land: { remote: origin, mode: pr, pr: { ciTimeoutMinutes: 0 } }', '"land.pr.ciTimeoutMinutes" must be a whole number of 1 or more'],
    ['land: { remote: origin, mode: pr, pr: { checks: [] } }', '"land.pr.checks" must be a list of check names'],
    ['land: { remote: origin, mode: pr, pr: { tokenEnv: "$GITHUB_TOKEN" } }', '"land.pr.tokenEnv" must be the name of an environment variable'],
    ['land: { remote: origin, mode: pr, pr: { tokenEnv: FORGE } }', '"land.pr.tokenEnv" FORGE is not named like a secret'],
    ['land: { remote: origin, mode: pr, pr: { apiUrl: "ftp://ghe.example.com" } }', '"land.pr.apiUrl" must be the forge API'],
    ['land: { remote: origin, mode: pr, pr: { apiUrl: "https://me:ghp_x@ghe.example.com/api/v3" } }', '"land.pr.apiUrl" must be the forge API'],
    ['land: { remote: origin, mode: pr }\nsandbox: { env: [GITHUB_TOKEN] }', '"sandbox.env" may not pass GITHUB_TOKEN: the forge token of land.pr stays with the worker'],
    ['land: { remote: origin, mode: pr, pr: { tokenEnv: GH_TOKEN } }\nsetup: { env: [GH_TOKEN] }', '"setup.env" may not pass GH_TOKEN'],
  ])('refuses %s in one line', (yaml, message) => {
    let error: Error | undefined;
    try {
      parseDexConfig(`${yaml}\n`, '/r');
    } catch (err) {
      error = err as Error;
    }
    expect(error).toBeInstanceOf(InvalidInput);
    expect(error!.message).toContain(message);
    expect(error!.message).not.toContain('\n');
  });

  it('lets a sandbox have GITHUB_TOKEN when landing does not use it', () => {
    expect(parseDexConfig('land: { remote: origin, mode: pr, pr: { tokenEnv: GH_TOKEN } }\nsandbox: { env: [GITHUB_TOKEN] }\n', '/r').sandbox.env).toEqual(['GITHUB_TOKEN']);
  });
});

describe("the forge repository, from the remote's URL", () => {
  it.each([
    ['https://github.com/octo/hello.git', undefined],
    ['https://github.com/octo/hello', undefined],
    ['https://x-access-token:ghp_secret@github.com/octo/hello.git', undefined],
    ['git@github.com:octo/hello.git', undefined],
    ['git@github.com:octo/hello', undefined],
    ['ssh://git@github.com/octo/hello.git', undefined],
    ['https://github.com/octo/hello.git', 'https://api.github.com'],
    ['https://ghe.example.com/octo/hello.git', 'https://ghe.example.com/api/v3'],
    ['git@ghe.example.com:octo/hello.git', 'https://ghe.example.com/api/v3'],
    ['http://127.0.0.1:41234/octo/hello.git', 'http://127.0.0.1:41234/api/v3'],
    // A fake forge serving its API over http and git over https, each on a port of its own.
    ['https://127.0.0.1:41235/octo/hello.git', 'http://127.0.0.1:41234/api/v3'],
    ['https://GitHub.com/octo/hello.git', undefined],
  ])('%s (apiUrl %s) is octo/hello', (url, apiUrl) => {
    expect(forgeRepository('origin', url, apiUrl)).toEqual({ owner: 'octo', repo: 'hello' });
  });

  it.each([
    ['/tmp/x.git', undefined, 'land.remote origin is /tmp/x.git, not a github.com repository'],
    ['file:///tmp/x.git', undefined, 'land.remote origin is file:///tmp/x.git, not a github.com repository'],
    ['https://gitlab.com/octo/hello.git', undefined, 'land.remote origin is https://gitlab.com/octo/hello.git, not a github.com repository'],
    ['https://github.com/octo', undefined, 'not a github.com repository'],
    ['https://github.com/octo/hello/tree/main', undefined, 'not a github.com repository'],
    ['https://github.com/octo/hello.git', 'https://ghe.example.com/api/v3', 'not a repository on ghe.example.com (the host of land.pr.apiUrl)'],
    ['https://127.0.0.2:41234/octo/hello.git', 'http://127.0.0.1:41234/api/v3', 'not a repository on 127.0.0.1 (the host of land.pr.apiUrl)'],
    ['git@github.com:octo/hello.git', 'https://ghe.example.com/api/v3', 'not a repository on ghe.example.com'],
    ['https://me:ghp_planted0000000000@gitlab.com/octo/hello.git', undefined, 'is https://***@gitlab.com/octo/hello.git, not'],
  ])('refuses %s (apiUrl %s)', (url, apiUrl, message) => {
    expect(() => forgeRepository('origin', url, apiUrl)).toThrow(message);
    expect(() => forgeRepository('origin', url, apiUrl)).not.toThrow('ghp_planted');
  });
});

describe('a roadmap that lands through pull requests, as it starts', () => {
  let root: string;
  /** A repository with a roadmap, `config` as its dex.config.yaml and `url` as its origin. */
  const repoWith = (config: string, url: string): string => roadmapRepoWithOrigin(mkdtempSync(join(root, 'repo-')), config, url);
  const start = (repo: string, env: NodeJS.ProcessEnv) =>
    buildRoadmapInput({ roadmap: join(repo, 'ROADMAP.md'), llm: 'anthropic' }, readSettings({}), { ANTHROPIC_API_KEY: 'test-key', ...env });

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'dex-land-pr-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("carries the repository the remote names, with the defaults, and never the token's value", () => {
    const repo = repoWith('land: { remote: origin, mode: pr, pr: { profile: review } }\n', 'git@github.com:octo/hello.git');
    const { input } = start(repo, { GITHUB_TOKEN: 'ghp_planted0000000000000000' });
    expect(input.land).toEqual({ remote: 'origin', mode: 'pr', pr: { ...PR_DEFAULTS, profile: 'review', owner: 'octo', repo: 'hello' } });
    expect(JSON.stringify(input)).not.toContain('ghp_planted');
  });

  it('reads a fake forge on loopback through apiUrl', () => {
    const repo = repoWith('land: { remote: origin, mode: pr, pr: { apiUrl: "http://127.0.0.1:41234/api/v3" } }\n', 'http://127.0.0.1:41234/octo/hello.git');
    expect(start(repo, { GITHUB_TOKEN: 'ghp_x' }).input.land?.pr).toMatchObject({ owner: 'octo', repo: 'hello', apiUrl: 'http://127.0.0.1:41234/api/v3' });
  });

  it("refuses to run the agent's commands unconfined beside the forge token", () => {
    const repo = repoWith('land: { remote: origin, mode: pr }\n', 'https://github.com/octo/hello.git');
    const unconfined = () =>
      buildRoadmapInput({ roadmap: join(repo, 'ROADMAP.md'), llm: 'anthropic', unsafeNoSandbox: true }, readSettings({}), { ANTHROPIC_API_KEY: 'k', GITHUB_TOKEN: 'ghp_x' });
    expect(unconfined).toThrow("land.mode pr needs the sandbox: without it the agent's commands would see GITHUB_TOKEN, the forge token");
    writeFileSync(join(repo, 'dex.config.yaml'), 'land: { remote: origin, mode: pr }\nsandbox: { mode: "off" }\n');
    expect(() => start(repo, { GITHUB_TOKEN: 'ghp_x' })).toThrow('land.mode pr needs the sandbox');
  });

  it.each([
    ['land: { remote: origin, mode: pr }\n', 'https://github.com/octo/hello.git', {}, 'dex.config.yaml: land.pr: GITHUB_TOKEN is not set: the forge token'],
    ['land: { remote: origin, mode: pr, pr: { tokenEnv: GH_TOKEN } }\n', 'https://github.com/octo/hello.git', { GITHUB_TOKEN: 'ghp_x', GH_TOKEN: ' ' }, 'land.pr: GH_TOKEN is not set'],
    ['land: { remote: origin, mode: pr }\n', '/tmp/x.git', { GITHUB_TOKEN: 'ghp_x' }, 'dex.config.yaml: land.remote origin is /tmp/x.git, not a github.com repository'],
    ['land: { remote: upstream, mode: pr }\n', 'https://github.com/octo/hello.git', { GITHUB_TOKEN: 'ghp_x' }, 'the repository has no remote "upstream"'],
  ])('refuses %s with origin %s in one line', (config, url, env, message) => {
    const repo = repoWith(config, url);
    expect(() => start(repo, env)).toThrow(message);
  });
});
