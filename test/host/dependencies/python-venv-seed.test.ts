import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETUP_SCRIPT } from '../../../host/dependencies/python/python-plan';

// python-setup.py's make_venv: a new venv copied from a bare one this python3 made once.

const scratch = () => mkdtempSync(join(tmpdir(), 'dex-venv-seed-'));
const makeVenv = (target: string, seeds: string) =>
  execFileSync('python3', ['-c', SETUP_SCRIPT, 'venv', target], { cwd: scratch(), encoding: 'utf8', env: { ...process.env, DEX_VENV_SEEDS: seeds } });
/** What the venv's own pip says of itself: its version and the site-packages it runs from. */
const pipOf = (venv: string) => execFileSync(join(venv, 'bin', 'pip'), ['--version'], { encoding: 'utf8' });

describe('a new venv from the seed', () => {
  it('is made by venv once, then copied: each copy names its own folder and its pip runs there', { timeout: 60_000 }, () => {
    const seeds = scratch();
    const first = join(scratch(), '.venv');
    expect(makeVenv(first, seeds)).toMatch(/-m venv .*\.[0-9a-f]{16}\.\d+/); // the seed, made by venv
    const [seed] = readdirSync(seeds);
    expect(seed).toMatch(/^[0-9a-f]{16}$/);

    const second = join(scratch(), 'work', '.venv');
    expect(makeVenv(second, seeds)).toBe(''); // copied: nothing run
    expect(readdirSync(seeds)).toEqual([seed]);
    for (const venv of [first, second]) {
      expect(pipOf(venv)).toContain(join(venv, 'lib'));
      expect(readFileSync(join(venv, 'bin', 'pip'), 'utf8').split('\n')[0]).toBe(`#!${venv}/bin/python3`);
      expect(readFileSync(join(venv, 'bin', 'activate'), 'utf8')).toContain(venv);
      expect(readFileSync(join(venv, 'pyvenv.cfg'), 'utf8')).not.toContain(seeds);
      expect(existsSync(join(venv, '.dex-made-at'))).toBe(false);
    }
    // The copy installs into itself, never into the seed.
    execFileSync(join(second, 'bin', 'python'), ['-c', 'import site, sys; sys.exit(0 if site.getsitepackages()[0].startswith(sys.argv[1]) else 1)', second]);
  });

  it("is made by venv where a copy's #! line would pass the kernel's 127 bytes", { timeout: 60_000 }, () => {
    const seeds = scratch();
    const deep = join(scratch(), 'x'.repeat(100), '.venv');
    expect(makeVenv(deep, seeds)).toContain(`-m venv ${deep}`);
    expect(readdirSync(seeds)).toEqual([]);
    expect(pipOf(deep)).toContain(join(deep, 'lib'));
  });

  it('is made right by two setups at once in sandboxes of their own, whose pids are the same', { timeout: 90_000 }, async () => {
    // Each sandbox has a pid namespace of its own: `unshare --pid --fork` gives both the same pid, as two bwraps do.
    const seeds = scratch();
    const venvs = [join(scratch(), '.venv'), join(scratch(), '.venv')];
    const inOwnPidNamespace = (target: string) =>
      promisify(execFile)('unshare', ['--pid', '--fork', 'python3', '-c', SETUP_SCRIPT, 'venv', target], { cwd: scratch(), env: { ...process.env, DEX_VENV_SEEDS: seeds } });
    await Promise.all(venvs.map(inOwnPidNamespace));
    for (const venv of venvs) expect(pipOf(venv)).toContain(join(venv, 'lib'));
    expect(readdirSync(seeds).filter((name) => !name.startsWith('.'))).toHaveLength(1);
  });
});
