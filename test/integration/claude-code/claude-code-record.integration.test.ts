// docs/claude-code.md#cassettes: a Claude Code run recorded with --llm record:FILE, then replayed by `dex replay-test FILE`.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { completionTurn, parsedResponses, toolTurn } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { claudeCodeSampleRepo } from '../../support/env/dev-server-env';

const FIX = "sed -i 's/return a - b;/return a + b;/' src/math.js";
// The fake model answers the live session; the recording is what a replay gets instead.
const testEnv = useDexEnvironment({
  server: 'dev',
  cassette: [toolTurn('fix-sum', ['Bash', { command: FIX, description: 'fix sum' }]), completionTurn('fix-sum', { status: 'complete', summary: 'sum adds now' })],
});

describe('a Claude Code session recorded to a cassette', () => {
  it('records each live answer with its call key, and dex replay-test replays the run to the same tree without the model', async () => {
    const repo = claudeCodeSampleRepo();
    const cassette = join(mkdtempSync(join(tmpdir(), 'dex-claude-record-')), 'session.jsonl');
    const live = { ...testEnv.cliEnv(), ANTHROPIC_BASE_URL: testEnv.fake.url, ANTHROPIC_API_KEY: 'sk-ant-record-key' };

    const run = await runDex(['task', 'Fix sum', '--repo', repo, '--llm', `record:${cassette}`], { env: live, timeoutMs: 150_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('completed');
    const asked = testEnv.requestsFor('fix-sum').length;
    expect(asked).toBe(2);

    const text = readFileSync(cassette, 'utf8');
    const lines = parsedResponses(text, cassette);
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.task === 'fix-sum' && l.phase === 'implement' && /#\d+$/.test(l.call ?? ''))).toBe(true);
    expect(lines[0].response.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'Bash', input: expect.objectContaining({ command: FIX }) })]);
    // The key reached the model as the relay's, never into the recording.
    expect(text).not.toContain('sk-ant-record-key');

    const replay = await runDex(['replay-test', cassette, '--json'], { env: testEnv.cliEnv(), timeoutMs: 150_000 });
    expect(replay.code, replay.stderr).toBe(0);
    const doc = JSON.parse(replay.stdout);
    expect(doc).toMatchObject({ same: true, differences: [], replayed: { state: 'completed' } });
    expect(doc.replayed.tasks).toEqual(doc.recorded.tasks);
    expect(testEnv.requestsFor('fix-sum')).toHaveLength(asked);
  }, 320_000);
});
