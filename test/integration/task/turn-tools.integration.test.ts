import { describe, expect, it } from 'vitest';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { fileAt } from '../../support/env/dev-server-env';

// A turn that only reads, then one that asks for three tools at once: a read, the fix, and a look at the folder.
const CASSETTE = [
  toolTurn('T-turn-tools', ['list_files', { path: '.' }], ['read_file', { path: 'test/math.test.js' }]),
  toolTurn(
    'T-turn-tools',
    ['read_file', { path: 'src/math.js' }],
    ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }],
    ['list_files', { path: 'src' }],
  ),
  completionTurn('T-turn-tools', { status: 'complete', summary: 'sum adds now' }),
];

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-turn-tools' });

type Event = { activityTaskScheduledEventAttributes?: { activityType?: { name?: string } | null } | null; userMetadata?: { summary?: { data?: Uint8Array | null } | null } | null };

describe('the tool calls of one turn', () => {
  it('run as one activity, in order, reads alone within the model call (which goes on to the next turn), and the next model call gets every result', async () => {
    const { repo, handle } = await dex.startTask('T-turn-tools');
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    expect(fileAt(repo, result.commit!, 'src/math.js')).toContain('return a + b;');

    const events = ((await handle.fetchHistory()).events ?? []) as Event[];
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes);
    const names = scheduled.map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
    // Two model calls for three turns: the first call ran the reading turn's reads and answered the next turn itself.
    expect(names.filter((n) => n === 'callModel')).toHaveLength(2);
    expect(names.filter((n) => n === 'runTurnTools')).toHaveLength(1);
    expect(names).not.toContain('runTool');
    const tools = scheduled.find((e) => e.activityTaskScheduledEventAttributes!.activityType!.name === 'runTurnTools')!;
    const summary = Buffer.from(tools.userMetadata!.summary!.data!).toString('utf8');
    expect(summary).toBe('"turn 2 · read_file src/math.js, edit_file src/math.js, list_files src"');

    // Each next request carries the turn's results, in the order the model asked for them (the read before the fix).
    const [, second, third] = dex.requestsFor('T-turn-tools');
    type Message = { role: string; content: { type: string; tool_use_id?: string; content?: unknown }[] };
    const resultsIn = (request: typeof second) => (request.body!.messages as Message[]).at(-1)!.content.filter((b) => b.type === 'tool_result');
    expect(resultsIn(second).map((r) => JSON.stringify(r.content))).toEqual([expect.stringContaining('src/'), expect.stringContaining('sum(2, 3)')]);
    const results = resultsIn(third);
    expect(results).toHaveLength(3);
    expect(JSON.stringify(results[0].content)).toContain('return a - b;');
    expect(JSON.stringify(results[2].content)).toContain('math.js');
    dex.recordHistory(handle.workflowId, 'task-workflow-turn-tools.json');
  });
});
