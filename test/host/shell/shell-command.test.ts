import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commandEnv, runProcess, type ShellCommandOptions } from '../../../host/shell/shell-command';

/** `command` with `/bin/sh -c` in `cwd`, as a sheet's statement runs (unconfined, without the model's credentials). */
const runShellCommand = (command: string, cwd: string, opts: ShellCommandOptions) => runProcess({ argv: ['/bin/sh', '-c', command], cwd, env: commandEnv() }, opts);

describe('runProcess', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dex-shell-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reports progress while the command runs', async () => {
    // The command can only finish once progress was reported: no guessing how long to wait.
    const result = await runShellCommand('while [ ! -f go ]; do sleep 0.01; done; echo done', dir, {
      timeoutMs: 10_000,
      outputLimitBytes: 1024,
      progressIntervalMs: 20,
      onProgress: () => writeFileSync(join(dir, 'go'), ''),
    });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, output: 'done\n' });
  });

  it('reports output as it arrives, without waiting for the slow beat of a silent command', async () => {
    const reports: number[] = [];
    // Only output can report progress here, and the command waits for a report.
    const result = await runShellCommand('echo started; while [ ! -f go ]; do sleep 0.01; done; echo done', dir, {
      timeoutMs: 10_000,
      outputLimitBytes: 1024,
      progressIntervalMs: 600_000,
      onProgress: ({ outputBytes }) => {
        reports.push(outputBytes);
        writeFileSync(join(dir, 'go'), '');
      },
    });
    expect(result).toMatchObject({ exitCode: 0, output: 'started\ndone\n' });
    expect(reports[0]).toBe('started\n'.length);
  });

  it('reports a silent command only while it is alive, not while its pipes drain', async () => {
    const reports: number[] = [];
    // The shell exits once its child is in a session of its own, which holds the pipes through the
    // 1 s grace: reports going on after the exit would add three more.
    const result = await runShellCommand("setsid sh -c 'touch away; exec sleep 3' & while [ ! -f away ]; do sleep 0.01; done; echo hi", dir, {
      timeoutMs: 60_000,
      outputLimitBytes: 1024,
      progressIntervalMs: 300,
      onProgress: ({ outputBytes }) => reports.push(outputBytes),
    });
    expect(result).toMatchObject({ exitCode: 0, output: 'hi\n' });
    expect(result.durationMs).toBeGreaterThanOrEqual(1000);
    expect(reports.length).toBeLessThanOrEqual(2);
  });

  it('kills the process group and rejects with the reason when aborted', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const running = runShellCommand(`touch started; sleep 30; touch finished`, dir, {
      timeoutMs: 60_000,
      outputLimitBytes: 1024,
      signal: controller.signal,
      progressIntervalMs: 10,
      onProgress: () => {
        if (existsSync(join(dir, 'started'))) controller.abort(new Error('cancelled by test'));
      },
    });
    await expect(running).rejects.toThrow('cancelled by test');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(existsSync(join(dir, 'finished'))).toBe(false);
  });

  it('returns when the command exits, ending background processes that hold its output open', async () => {
    const started = Date.now();
    const result = await runShellCommand('sleep 30 & echo hi', dir, { timeoutMs: 60_000, outputLimitBytes: 1024 });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, output: 'hi\n' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('hides the model credentials from the command', async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'sk-test-secret';
    try {
      const result = await runShellCommand('env', dir, { timeoutMs: 5000, outputLimitBytes: 1 << 20 });
      expect(result.output).toContain('PATH=');
      expect(result.output).not.toContain('sk-test-secret');
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it('does not start when already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    await expect(
      runShellCommand('touch ran', dir, { timeoutMs: 1000, outputLimitBytes: 10, signal: controller.signal }),
    ).rejects.toThrow('too late');
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });

  it('does not cut a UTF-8 character in half when keeping the tail', async () => {
    const result = await runShellCommand("printf 'ééééé'", dir, { timeoutMs: 5000, outputLimitBytes: 5 });
    expect(result.output).toBe('éé');
    expect(result.omittedBytes).toBe(6);
  });
});
