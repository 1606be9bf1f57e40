import { describe, expect, it } from 'vitest';
import { heartbeatingWhileRunning } from '../../../activities/run/local-heartbeat';
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

  it('passes a failure through', async () => {
    const { fails } = heartbeatingWhileRunning({
      fails: async () => {
        throw new Error('git failed');
      },
    });
    await expect(runActivity(fails, [])).rejects.toThrow('git failed');
  });
});
