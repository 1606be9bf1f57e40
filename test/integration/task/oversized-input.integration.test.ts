// Inputs too large for where the server shows them are cut there, never passed on whole, and
// nothing the SDK's core logs reaches stdout: `--json` prints one JSON document whatever the
// input (docs/interfaces.md#what-a-run-shows-outside-its-query, issue 26).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DETAILS_BYTES, KEYWORD_BYTES, SUMMARY_BYTES, TITLE_BYTES } from '../../../core/limits/server-limits';
import { completionTurn, fixSumTurns, toJsonl, toolTurn } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { sampleRepo } from '../../support/env/dev-server-env';
import { roadmapRepo } from '../../support/plans/roadmap-fixture';

// No worker here: each dex command runs its own, on queues of its own.
const testEnv = useDexEnvironment({ server: 'dev' });

/** The core's warning threshold for a memo, in bytes (its `memo_warn_size`). */
const MEMO_WARN_BYTES = 2 * 1024;

function cassetteFile(lines: Parameters<typeof toJsonl>[0]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dex-cassette-')), 'run.cassette.jsonl');
  writeFileSync(file, toJsonl(lines));
  return file;
}

const bytes = (data: Uint8Array | null | undefined): number => data?.length ?? 0;

describe('oversized input on a real dev server', () => {
  it('dex task with a 100 KB title prints one JSON document; memo, summary and search attributes stay small, the input keeps it whole', { timeout: 180_000 }, async () => {
    const title = `Fix sum ${'é and more words '.repeat(6_000)}`;
    expect(Buffer.byteLength(title)).toBeGreaterThan(100 * 1024);
    // WARN shows the core's warnings, as `dex worker` does: they go to stderr all the same.
    const run = await runDex(['task', title, '--repo', sampleRepo(), '--llm', `replay:${cassetteFile(fixSumTurns('*'))}`, '--json'], {
      env: { ...testEnv.cliEnv(), DEX_LOG_LEVEL: 'WARN' },
    });
    expect(run.code, run.stderr.slice(0, 2_000)).toBe(0);
    const doc = JSON.parse(run.stdout) as { workflowId: string; state: string };
    expect(doc.state).toBe('completed');
    expect(run.stderr).not.toContain('TMPRL1103');

    const handle = testEnv.client.workflow.getHandle(doc.workflowId);
    const described = await handle.describe();
    const memo = described.raw.workflowExecutionInfo?.memo?.fields ?? {};
    const memoBytes = Object.entries(memo).reduce((sum, [key, payload]) => sum + key.length + bytes(payload.data), 0);
    expect(memoBytes).toBeLessThan(MEMO_WARN_BYTES);
    const memoTitle = (described.memo as { title: string }).title;
    expect(memoTitle.startsWith('Fix sum é and more')).toBe(true);
    expect(memoTitle.endsWith('…')).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(memoTitle))).toBeLessThanOrEqual(TITLE_BYTES);
    const metadata = described.raw.executionConfig?.userMetadata;
    expect(bytes(metadata?.summary?.data)).toBeLessThanOrEqual(SUMMARY_BYTES);
    expect(bytes(metadata?.details?.data)).toBeLessThanOrEqual(DETAILS_BYTES);
    for (const [name, values] of Object.entries(described.searchAttributes)) {
      for (const value of values as unknown[]) expect(Buffer.byteLength(String(value)), name).toBeLessThanOrEqual(KEYWORD_BYTES);
    }
    // The whole title is in the run's input.
    const { events } = await handle.fetchHistory();
    const input = events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
    expect((JSON.parse(Buffer.from(input!).toString('utf8')) as { title: string }).title).toBe(title.trim());
  });

  it('a core warning goes to stderr: dex run --json of a roadmap whose task passes the payload warning limit', { timeout: 240_000 }, async () => {
    const description = `  ${'a line of the description that goes on and on. '.repeat(12_000)}\n`;
    const repo = roadmapRepo(`- [ ] B1: Add notes\n${description}`, 'verify: ["node --test"]\n');
    const cassette = cassetteFile([toolTurn('B1', ['write_file', { path: 'NOTES.md', content: 'one\n' }]), completionTurn('B1', { status: 'complete', summary: 'notes' })]);
    const run = await runDex(['run', join(repo, 'ROADMAP.md'), '--llm', `replay:${cassette}`, '--json'], { env: { ...testEnv.cliEnv(), DEX_LOG_LEVEL: 'WARN' } });
    expect(run.code, run.stderr.slice(0, 2_000)).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ state: 'completed' });
    // The core warned, on stderr; left to itself it would have printed on stdout.
    expect(run.stderr).toMatch(/\[WARN\] \[TMPRL1103\] Attempted to upload payloads with size that exceeded the warning limit/);
  });
});
