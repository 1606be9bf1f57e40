// docs/testing-your-flows.md#layers-and-sheets: a big night's continue-as-new, tested with a few topics.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDexTest, type DexTest } from '../../../client/testing';

const FLOWS = join(__dirname, '..', '..', 'fixtures', 'flows');
const night = { file: join(FLOWS, 'nightly.layer.yaml'), cassette: join(FLOWS, 'nightly.cassette.jsonl'), messages: join(FLOWS, 'nightly.messages.jsonl'), clock: '2025-01-31T18:00:00Z' };

describe('a layer whose history limit makes it continue as new, on the time-skipping server', () => {
  let dex: DexTest;
  beforeAll(async () => {
    dex = await startDexTest();
  }, 60_000);
  afterAll(() => dex.stop());

  it('hands its targets on from run to run and ends with the whole record', async () => {
    const run = await dex.runLayer({ ...night, historyLimit: 1 });
    expect(run.chainRuns).toBe(2);
    expect(run.record).toMatchObject({ status: 'success', targetsMatched: 2, targetsProcessed: 2, insightsCreated: 2 });
    expect(Object.keys(run.prompts).sort()).toEqual(['design/reflect', 'ops/reflect']);
  });

  it('runs in one run without the limit, and refuses a limit that is not a number of events', async () => {
    const run = await dex.runLayer(night);
    expect(run.chainRuns).toBe(1);
    await expect(dex.runLayer({ ...night, historyLimit: 0 })).rejects.toThrow('historyLimit 0 is not a whole number of events above 0');
  });
});
