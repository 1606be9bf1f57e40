import { describe, expect, it } from 'vitest';
import { FAILURE } from '../../../core/run/failure-types';
import type { TaskResult } from '../../../core/task/task-types';
import { fixSumTurns, usageTotals } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { commitsOnBranch } from '../../support/env/dev-server-env';

const TASK = 'T-stall';
const CASSETTE = fixSumTurns(TASK);

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-stall' });

describe('a model stream that stalls after its first events', () => {
  it('is given up and retried well within a minute, and the task completes', async ({ annotate }) => {
    dex.fake.injectFault({ kind: 'stall', match: { task: TASK } });
    const { repo, handle } = await dex.startTask(TASK);
    const result = (await handle.result()) as TaskResult;

    expect(result.state).toBe('completed');
    expect(commitsOnBranch(repo, result.branch)).toHaveLength(1);
    const [stalled, retried] = dex.requestsFor(TASK);
    expect(retried.headers['x-dex-call']).toBe(stalled.headers['x-dex-call']);
    const retrySeconds = (retried.time - stalled.time) / 1000;
    await annotate(`the stalled request was retried after ${retrySeconds.toFixed(1)} s`);
    expect(retrySeconds).toBeLessThan(60);
    // The call that stalled was never answered, so it costs nothing.
    expect(result.tokens).toEqual(usageTotals(CASSETTE));

    // The attempt ended because its stream went silent, not because its heartbeats stopped.
    const { events } = await handle.fetchHistory();
    const secondAttempt = (events ?? []).find((e) => e.activityTaskStartedEventAttributes?.attempt === 2);
    expect(secondAttempt?.activityTaskStartedEventAttributes?.lastFailure?.applicationFailureInfo?.type).toBe(FAILURE.ModelStreamStalled);
  }, 120_000);
});
