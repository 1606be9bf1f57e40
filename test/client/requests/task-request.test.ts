import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTaskInput, checkTaskRequest, taskDefaultsFrom } from '../../../client/requests/task-request';
import { parseDexConfig } from '../../../client/config/config-file';
import { readSettings } from '../../../client/settings';

const env = { ANTHROPIC_API_KEY: 'sk-test' };
const settings = readSettings({});
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A repository with one commit, and `config` as its dex.config.yaml when given. */
function repoWith(config?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'dex-task-request-'));
  dirs.push(dir);
  if (config) writeFileSync(join(dir, 'dex.config.yaml'), config);
  writeFileSync(join(dir, 'README.md'), '# r\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  return dir;
}

const inputOf = (repo: string, attempts?: string) => buildTaskInput({ title: 'Fix sum', repo, attempts, unsafeNoSandbox: true }, settings, env).input;

describe('best of N in a task request (docs/attempts.md)', () => {
  it("takes the config's attempts, `--attempts N` over their count, and `--attempts 1` turning them off", () => {
    const configured = repoWith('attempts: { count: 3, stopWhen: first-pass }\n');
    expect(inputOf(configured).attempts).toEqual({ count: 3, stopWhen: 'first-pass' });
    expect(inputOf(configured, '5').attempts).toEqual({ count: 5, stopWhen: 'first-pass' });
    expect('attempts' in inputOf(configured, '1')).toBe(false);
    const plain = repoWith();
    expect('attempts' in inputOf(plain)).toBe(false);
    expect(inputOf(plain, '2').attempts).toEqual({ count: 2 });
  });

  it.each(['9', '0', 'three', '2.5', ''])('refuses `--attempts %s` in one line before anything starts', (value) => {
    const problem = `--attempts must be a whole number from 1 (off) to 8, not "${value}"`;
    expect(() => inputOf(repoWith(), value)).toThrow(problem);
    expect(() => checkTaskRequest({ title: 'Fix sum', attempts: value }, env)).toThrow(problem);
  });

  it("gives a roadmap's tasks the config's attempts through their defaults, and nothing without them", () => {
    const defaults = (yaml: string) => taskDefaultsFrom(parseDexConfig(yaml, '/r'), { kind: 'anthropic' }, '/r', 'dex@host', true);
    expect(defaults('attempts: 4\n').attempts).toEqual({ count: 4 });
    expect('attempts' in defaults('')).toBe(false);
  });
});
