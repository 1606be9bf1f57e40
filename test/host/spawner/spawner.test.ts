import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Spawner, SpawnerGone } from '../../../host/spawner/spawner';

const opts = (over: Partial<{ cwd: string; env: NodeJS.ProcessEnv }> = {}) => ({ cwd: tmpdir(), env: { PATH: process.env.PATH }, maxBuffer: 1024 * 1024, ...over });

describe('the spawner (a small child that starts dex read-only commands)', () => {
  let spawner: Spawner;
  afterEach(() => spawner?.stop());

  it('returns the exact bytes a command printed, NULs included, in its cwd and environment', async () => {
    spawner = new Spawner();
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-spawner-')));
    const out = await spawner.run('sh', ['-c', 'printf "%s\\0%s\\0" "$(pwd)" "$DEX_PROBE"'], opts({ cwd: dir, env: { PATH: process.env.PATH, DEX_PROBE: 'é x' } }));
    expect(out.stdout.toString('utf8').split('\0')).toEqual([dir, 'é x', '']);
  });

  it('rejects as execFile does: a non-zero exit with its stderr, a program that does not exist', async () => {
    spawner = new Spawner();
    await expect(spawner.run('sh', ['-c', 'echo nope >&2; exit 3'], opts())).rejects.toThrow(/exit 3: nope/);
    await expect(spawner.run('dex-no-such-program', [], opts())).rejects.toThrow(/ENOENT/);
  });

  it('answers concurrent commands each with its own output', async () => {
    spawner = new Spawner();
    const outs = await Promise.all(Array.from({ length: 20 }, (_, i) => spawner.run('sh', ['-c', `sleep 0.0${i % 5}; echo ${i}`], opts())));
    expect(outs.map((o) => o.stdout.toString().trim())).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
  });

  it('fails a command with SpawnerGone when its child dies first, and starts a new child for the next', async () => {
    spawner = new Spawner();
    const pid = Number((await spawner.run('sh', ['-c', 'echo $PPID'], opts())).stdout.toString().trim());
    const slow = spawner.run('sleep', ['5'], opts());
    process.kill(pid, 'SIGKILL');
    await expect(slow).rejects.toBeInstanceOf(SpawnerGone);
    const again = await spawner.run('sh', ['-c', 'echo $PPID'], opts());
    expect(Number(again.stdout.toString().trim())).not.toBe(pid);
  });

  it('does not keep its process alive once idle', () => {
    // A process that used the spawner exits by itself, without stop(): the idle child is unref'd.
    const script = `const { Spawner } = require(${JSON.stringify(join(__dirname, '..', '..', '..', 'host', 'spawner', 'spawner.ts'))});
      new Spawner().run('true', [], { cwd: '/', env: { PATH: process.env.PATH }, maxBuffer: 1024 }).then(() => console.log('ran'));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(out.trim()).toBe('ran');
  });
});
