// docs/claude-code.md as a person uses it: `agent: claude-code` in dex.config.yaml, `dex task`, then `dex log`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { completionTurn, toJsonl, toolTurn } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { claudeCodeSampleRepo } from '../../support/env/dev-server-env';

const testEnv = useDexEnvironment({ server: 'dev' });

describe('dex task with agent: claude-code in dex.config.yaml', () => {
  it('runs the phase as a Claude Code session from a replay cassette; dex log shows its turns and commands', async () => {
    const repo = claudeCodeSampleRepo();
    const cassette = join(mkdtempSync(join(tmpdir(), 'dex-claude-cli-')), 'session.jsonl');
    const fix = "sed -i 's/return a - b;/return a + b;/' src/math.js";
    writeFileSync(cassette, toJsonl([toolTurn('*', ['Bash', { command: fix, description: 'fix sum' }]), completionTurn('*', { status: 'complete', summary: 'sum adds now' })]));
    const env = testEnv.cliEnv();

    const run = await runDex(['task', 'Fix sum', '--repo', repo, '--llm', `replay:${cassette}`], { env, timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    const id = run.stdout.split(':')[0];
    expect(run.stdout).toContain('completed');
    expect(run.stdout).toMatch(/cost: \$[\d.]+ over 2 model turns/);

    const log = await runDex(['log', id], { env });
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain(`── ${id}/implement/1`);
    expect(log.stdout).toMatch(/turn 1 · claude-sonnet-4-6 · \d+ in \/ \d+ out/);
    expect(log.stdout).toContain(`Bash {"command":"${fix.replace(/"/g, '\\"')}`);
    expect(log.stdout).toMatch(/verify passed: /);
  }, 180_000);
});
