import { describe, expect, it } from 'vitest';
import { heartbeatingWhileRunning, reportProgress } from '../../../activities/run/local-heartbeat';
import { mockActivityEnv, runActivity } from '../../support/env/mock-activity';

describe('heartbeatingWhileRunning', () => {
  it('heartbeats at the start and then on a ticker until the activity settles', async () => {
    const env = mockActivityEnv();
    let beats = 0;
    let secondBeat!: () => void;
    const twoBeats = new Promise<void>((resolve) => (secondBeat = resolve));
    env.on('heartbeat', () => {
      if (++beats === 2) secondBeat();
    });
    // The activity can only finish once the ticker has beaten after the first beat.
    const { waitForTwoBeats } = heartbeatingWhileRunning({
      waitForTwoBeats: async (label: string) => {
        await twoBeats;
        return `${label} done`;
      },
    });
    await expect(runActivity(waitForTwoBeats, ['git'], env)).resolves.toBe('git done');
    expect(beats).toBe(2);
  });

  it('repeats what reportProgress set on every tick, until it is set again', async () => {
    const env = mockActivityEnv();
    const beats: unknown[] = [];
    let tickRepeated!: () => void;
    const repeated = new Promise<void>((resolve) => (tickRepeated = resolve));
    env.on('heartbeat', (details: unknown) => {
      beats.push(details);
      if (beats.filter((d) => JSON.stringify(d) === '{"waiting":"npm"}').length === 2) tickRepeated();
    });
    const { waits } = heartbeatingWhileRunning({
      waits: async () => {
        reportProgress({ waiting: 'npm' });
        await repeated;
        reportProgress(undefined);
      },
    });
    await runActivity(waits, [], env);
    // The first beat carries nothing, the report's own beat and a tick carry the progress, the last beat clears it.
    expect(beats[0]).toBeUndefined();
    expect(beats.slice(1, 3)).toEqual([{ waiting: 'npm' }, { waiting: 'npm' }]);
    expect(beats.at(-1)).toBeUndefined();
  });

  it('passes a failure through', async () => {
    const { fails } = heartbeatingWhileRunning({
      fails: async () => {
        throw new Error('git failed');
      },
    });
    await expect(runActivity(fails, [])).rejects.toThrow('git failed');
  });
});
