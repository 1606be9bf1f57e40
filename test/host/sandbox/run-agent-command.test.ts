import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX } from '../../../core/safety/sandbox-policy';
import { writeSetupState } from '../../../host/dependencies/setup-state';
import { runAgentCommand } from '../../../host/sandbox/run-agent-command';
import { commitProject } from '../../support/projects/real-projects';

/** The process limit a command in `worktree` runs under, as the kernel says it. */
async function maxProcesses(worktree: string): Promise<string> {
  const run = await runAgentCommand("grep 'Max processes' /proc/self/limits", worktree, DEFAULT_SANDBOX, { timeoutMs: 30_000, outputLimitBytes: 4096 });
  return run.output.trim().split(/\s+/)[2];
}

describe('the process limit of a command in a set-up worktree', () => {
  it("is the policy's, or a plan's own when higher (a JVM build's threads)", async () => {
    const repo = commitProject('threads', { 'README.md': 'x\n' });
    const worktree = join(mkdtempSync(join(tmpdir(), 'dex-processes-')), 'wt');
    execFileSync('git', ['worktree', 'add', '-q', '--detach', worktree], { cwd: repo });
    expect(await maxProcesses(worktree)).toBe(String(DEFAULT_SANDBOX.limits.processes));
    const plan = { ecosystem: 'maven', key: 'k', outputs: ['.dex/maven'], binDirs: [], commandEnv: {}, toolchainPaths: [] };
    await writeSetupState(worktree, { plans: [{ ...plan, processes: 4096 }, { ...plan, ecosystem: 'npm' }] });
    expect(await maxProcesses(worktree)).toBe('4096');
    await writeSetupState(worktree, { plans: [{ ...plan, processes: 16 }] });
    expect(await maxProcesses(worktree)).toBe(String(DEFAULT_SANDBOX.limits.processes));
  });
});
