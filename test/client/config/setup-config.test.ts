import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDexConfig } from '../../../client/config/config-file';
import { InvalidInput } from '../../../core/run/invalid-input';

const repo = mkdtempSync(join(tmpdir(), 'dex-setup-config-'));

/** The error `text` is rejected with, as its message. */
function rejection(text: string): string {
  try {
    parseDexConfig(text, repo);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInput);
    return (err as Error).message;
  }
  throw new Error(`accepted: ${text}`);
}

describe('the setup section of dex.config.yaml', () => {
  it('is absent by default (detection), false to turn setup off, and a map of its settings', () => {
    expect(parseDexConfig('', repo).setup).toBeUndefined();
    expect(parseDexConfig('setup: false', repo).setup).toBe(false);
    const config = parseDexConfig(
      [
        'setup:',
        '  commands: ["npm ci", "npm run build"]',
        '  cache: [node_modules, dist]',
        '  inputs: [package-lock.json]',
        '  allowHosts: [npm.internal.example.com, "*.example.org"]',
        '  env: [NPM_TOKEN]',
        '  copy: [.env]',
        '  network: true',
      ].join('\n'),
      repo,
    );
    expect(config.setup).toEqual({
      commands: ['npm ci', 'npm run build'],
      cache: ['node_modules', 'dist'],
      inputs: ['package-lock.json'],
      allowHosts: ['npm.internal.example.com', '*.example.org'],
      env: ['NPM_TOKEN'],
      copy: ['.env'],
      network: true,
    });
  });

  it.each([
    ['an unknown key', 'setup: { install: npm ci }', '"setup.install" is not a known key'],
    ['a string', 'setup: npm ci', '"setup" must be false or a map'],
    ['an empty command', 'setup: { commands: [""] }', '"setup.commands" must be a list of commands'],
    ['a cache without commands', 'setup: { cache: [node_modules], inputs: [package-lock.json] }', '"setup.cache" needs setup.commands'],
    ['a cache without inputs', 'setup: { commands: [make], cache: [build] }', '"setup.cache" needs setup.inputs'],
    ['a path out of the repository', 'setup: { copy: [../secrets.env] }', '"setup.copy" must be a list of paths of the repository'],
    ['an absolute path', 'setup: { copy: [/etc/passwd] }', '"setup.copy" must be a list of paths of the repository'],
    ['the git folder', 'setup: { commands: [x], inputs: [.git/config], cache: [y] }', '"setup.inputs" must be a list of files of the repository'],
    ['a host with a scheme', 'setup: { allowHosts: ["https://npm.example.com"] }', '"setup.allowHosts" must be a list of host names'],
    ["the model's key", 'setup: { env: [ANTHROPIC_API_KEY] }', 'may not pass ANTHROPIC_API_KEY'],
    ['network as a word', 'setup: { network: "no" }', '"setup.network" must be true or false'],
  ])('rejects %s in one line naming the key', (_, text, problem) => {
    const message = rejection(text);
    expect(message).toContain(problem);
    expect(message).toMatch(/^dex\.config\.yaml: /);
    expect(message).not.toContain('\n');
  });
});
