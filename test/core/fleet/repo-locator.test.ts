import { describe, expect, it } from 'vitest';
import { forgeApiUrl, isUrl, parseForgeRepository } from '../../../core/fleet/repo-locator';
import { InvalidInput } from '../../../core/run/invalid-input';

const GITHUB = { tokenEnv: 'GITHUB_TOKEN' };
const GHES = { tokenEnv: 'GHE_TOKEN', apiUrl: 'https://ghe.example.com/api/v3' };

describe('a forge repository named by --repo (docs/fleet.md#the-repository-locator)', () => {
  it('reads a github.com URL, with or without .git and a trailing slash, as plain data without a token', () => {
    const expected = {
      kind: 'forge', forge: 'github', apiUrl: 'https://api.github.com', tokenEnv: 'GITHUB_TOKEN',
      host: 'github.com', owner: 'octo', repo: 'demo', gitUrl: 'https://github.com/octo/demo.git',
    };
    for (const text of ['https://github.com/octo/demo', 'https://github.com/octo/demo.git', ' https://www.github.com/octo/demo/ ']) {
      expect(parseForgeRepository(text, GITHUB)).toEqual(expected);
    }
    // It crosses workflow history as JSON: nothing in it is lost there.
    expect(JSON.parse(JSON.stringify(parseForgeRepository('https://github.com/octo/demo', GITHUB)))).toEqual(expected);
  });

  it("reads another host's URL as GitHub Enterprise Server's layout, its port kept, unless the configured API is on that host", () => {
    expect(parseForgeRepository('https://git.corp.example:8443/team/app', GITHUB)).toMatchObject({
      host: 'git.corp.example:8443', apiUrl: 'https://git.corp.example:8443/api/v3', gitUrl: 'https://git.corp.example:8443/team/app.git', owner: 'team', repo: 'app',
    });
    expect(parseForgeRepository('https://ghe.example.com/team/app', { ...GHES, apiUrl: 'https://ghe.example.com/custom/api' })).toMatchObject({
      host: 'ghe.example.com', apiUrl: 'https://ghe.example.com/custom/api', tokenEnv: 'GHE_TOKEN',
    });
  });

  it('completes OWNER/NAME with the configured forge, github.com by default', () => {
    expect(parseForgeRepository('octo/demo', GITHUB)).toMatchObject({ host: 'github.com', apiUrl: 'https://api.github.com', gitUrl: 'https://github.com/octo/demo.git' });
    expect(parseForgeRepository('octo/demo.git', GHES)).toMatchObject({ host: 'ghe.example.com', apiUrl: 'https://ghe.example.com/api/v3', gitUrl: 'https://ghe.example.com/octo/demo.git', repo: 'demo' });
  });

  it('is undefined for what has neither shape: the caller takes it as a folder', () => {
    for (const text of ['demo', './octo/demo', '../demo', 'a/b/c', '/tmp/demo', 'octo/..', 'octo/de mo']) {
      expect(parseForgeRepository(text, GITHUB), text).toBeUndefined();
    }
    expect(isUrl('https://github.com/a/b')).toBe(true);
    expect(isUrl('octo/demo')).toBe(false);
  });

  it('refuses, in one line and without showing a credential, a URL that is not https, carries a user or token, or names no repository', () => {
    const refusal = (text: string) => {
      try {
        parseForgeRepository(text, GITHUB);
      } catch (err) {
        expect(err).toBeInstanceOf(InvalidInput);
        return (err as Error).message;
      }
      throw new Error(`${text} was accepted`);
    };
    expect(refusal('http://github.com/octo/demo')).toBe('--repo http://github.com/octo/demo: dex reaches a forge repository over https only (https://HOST/OWNER/NAME)');
    const withToken = refusal('https://x-access-token:ghp_secret123@github.com/octo/demo');
    expect(withToken).toBe("--repo https://***@github.com/octo/demo: a forge repository's URL may not carry a user or token: dex reads the token from GITHUB_TOKEN on the worker");
    expect(withToken).not.toContain('ghp_secret123');
    expect(refusal('https://github.com/octo/demo/tree/main')).toMatch(/^--repo https:\/\/github.com\/octo\/demo\/tree\/main: names no repository: use /);
    expect(refusal('https://github.com/octo')).toMatch(/names no repository/);
    expect(refusal('ssh://git@github.com/octo/demo')).toMatch(/over https only/);
    expect(refusal('https://github.com/octo/demo?tab=code')).toMatch(/without query or fragment/);
  });

  it('takes an https API root without credentials for DEX_FORGE_API_URL, naming the variable otherwise', () => {
    expect(forgeApiUrl(' https://ghe.example.com/api/v3/ ', 'DEX_FORGE_API_URL')).toBe('https://ghe.example.com/api/v3');
    for (const bad of ['http://ghe.example.com/api/v3', 'https://u:p@ghe.example.com/api/v3', 'not a url']) {
      expect(() => forgeApiUrl(bad, 'DEX_FORGE_API_URL')).toThrow(new InvalidInput("DEX_FORGE_API_URL must be the forge API's https URL, such as https://github.example.com/api/v3"));
    }
  });
});
