import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentCommand } from '../../../host/sandbox/run-agent-command';
import { DependencyCache } from '../../../host/dependencies/dependency-cache';
import { prepareDependencies } from '../../../host/dependencies/prepare-dependencies';

const SECRET = 'npm_registry_token_for_setup_only';

describe("setup's secrets (setup.env) reach setup's commands and never the agent's", () => {
  let worktree: string;
  beforeAll(() => {
    process.env.DEX_TEST_REGISTRY_TOKEN = SECRET;
    worktree = mkdtempSync(join(tmpdir(), 'dex-setup-secret-'));
    writeFileSync(join(worktree, '.gitignore'), 'seen-by-setup.txt\n');
    execFileSync('git', ['init', '-q'], { cwd: worktree });
  });
  afterAll(() => {
    delete process.env.DEX_TEST_REGISTRY_TOKEN;
  });

  it('setup sees it, sandboxed; a later command in the same worktree does not', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dex-setup-cache-'));
    const setup = { commands: ['printf %s "$DEX_TEST_REGISTRY_TOKEN" > seen-by-setup.txt'], env: ['DEX_TEST_REGISTRY_TOKEN'] };
    const outcome = await prepareDependencies({ worktree, config: setup, cache: new DependencyCache(root), downloads: join(root, '.downloads'), command: { timeoutMs: 30_000 } });
    expect(outcome.steps).toEqual([expect.objectContaining({ ecosystem: 'commands', source: 'ran' })]);
    expect(readFileSync(join(worktree, 'seen-by-setup.txt'), 'utf8')).toBe(SECRET);

    const agent = await runAgentCommand('printf "[%s]" "$DEX_TEST_REGISTRY_TOKEN"; env', worktree, undefined, { timeoutMs: 30_000, outputLimitBytes: 65_536 });
    expect(agent.exitCode).toBe(0);
    expect(agent.output).toContain('[]');
    expect(agent.output).not.toContain(SECRET);
  });
});
