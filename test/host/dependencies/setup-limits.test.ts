import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX } from '../../../core/safety/sandbox-policy';
import { DependencyCache } from '../../../host/dependencies/dependency-cache';
import { prepareDependencies } from '../../../host/dependencies/prepare-dependencies';
import { runAgentCommand } from '../../../host/sandbox/run-agent-command';
import { commitProject } from '../../support/projects/real-projects';

/** Reserves 6 GiB of address space without touching it, as installers' thread pools and runtimes do. */
const RESERVE = `python3 -c "import mmap; mmap.mmap(-1, 6 << 30); print('reserved')"`;

describe("setup's address space", () => {
  it("lets an install reserve 16 GiB whatever the agent's commands may (uv aborts under 4 GiB), in the same sandbox", async () => {
    const repo = commitProject('reserving', { 'README.md': 'x\n' });
    const root = mkdtempSync(join(tmpdir(), 'dex-setup-limits-'));
    const worktree = join(root, 'wt');
    execFileSync('git', ['worktree', 'add', '-q', '--detach', worktree], { cwd: repo });
    // A config that holds the agent's commands to 4 GiB.
    const sandbox = { ...DEFAULT_SANDBOX, limits: { ...DEFAULT_SANDBOX.limits, memoryMb: 4096 } };
    const agent = await runAgentCommand(RESERVE, worktree, sandbox, { timeoutMs: 30_000, outputLimitBytes: 64 * 1024 });
    expect(agent.exitCode).not.toBe(0);
    expect(agent.output).toMatch(/MemoryError|Cannot allocate memory/);
    const setup = await prepareDependencies({
      worktree,
      config: { commands: [RESERVE] },
      sandbox,
      cache: new DependencyCache(join(root, 'cache')),
      downloads: join(root, 'downloads'),
      command: { timeoutMs: 30_000 },
    });
    expect(setup.report).toMatch(/^reserved$/m);
  });
});
