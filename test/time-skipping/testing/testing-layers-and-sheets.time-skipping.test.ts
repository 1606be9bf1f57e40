// The layer and sheet examples of docs/testing-your-flows.md, run as they are printed there: a layer
// over the messages a test imports, a second night that reads the first one's insights, and a sheet.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDexTest, type DexTest } from 'dex/testing';

const FLOWS = join(__dirname, '..', '..', 'fixtures', 'flows');

describe('the nightly layer and the greet sheet', () => {
  let dex: DexTest;
  beforeAll(async () => {
    dex = await startDexTest();
  }, 60_000);
  afterAll(() => dex.stop());

  it('reflects once on each topic, over the last 24 hours of its messages', async () => {
    const run = await dex.runLayer({
      file: join(FLOWS, 'nightly.layer.yaml'),
      cassette: join(FLOWS, 'nightly.cassette.jsonl'),
      messages: join(FLOWS, 'nightly.messages.jsonl'), // a file as `dex messages import` reads it
      clock: '2025-01-31T18:00:00Z', // the lookbacks count back from here
    });
    expect(run.record).toMatchObject({ status: 'success', targetsProcessed: 2, targetsFailed: 0, targetsSkipped: 0, insightsCreated: 2 });
    expect(run.prompts['ops/reflect']).toContain('#oncall ben: paged twice for the same disk');
    expect(run.prompts['design/reflect']).not.toContain('old news'); // two days old
    expect(run.insights).toContainEqual(expect.objectContaining({ topic: 'ops', content: 'deploys slip and the same disk pages on call' }));
    expect(run.costUsd).toBeGreaterThan(0);
  });

  it('reads what the first night stored on the second: the store lasts until stop()', async () => {
    const run = await dex.runLayer({
      file: join(FLOWS, 'nightly.layer.yaml'),
      cassette: join(FLOWS, 'nightly.cassette.jsonl'),
      messages: [{ topic: 'ops', channel: 'general', author: 'ana', text: 'the deploy went out', time: '2025-02-01T09:00:00Z' }],
      clock: '2025-02-01T18:00:00Z',
    });
    expect(run.targets).toEqual([
      { id: 'ops', status: 'success' },
      { id: 'design', status: 'skipped' }, // nothing said in the last 24 hours
    ]);
    expect(run.prompts['ops/reflect']).toContain('ana: the deploy went out');
    expect(run.prompts['ops/reflect']).toContain('(reflection, confidence 0.8, importance 0.7) deploys slip');
  });

  it('greets the person its shell statement names', async () => {
    const run = await dex.runSheet({ file: join(FLOWS, 'greet.sheet.yaml'), cassette: join(FLOWS, 'greet.cassette.jsonl') });
    expect(run.state).toBe('completed');
    expect(run.statements).toEqual([
      { id: 'who', status: 'success', value: 'ana' },
      { id: 'greet', status: 'success', value: 'Hello, ana!' },
    ]);
  });

  it('runs nothing when a person rejects its plan', async () => {
    const run = await dex.runSheet({
      file: join(FLOWS, 'greet.sheet.yaml'),
      cassette: join(FLOWS, 'greet.cassette.jsonl'),
      confirm: true,
      people: [{ reject: 'plan', reason: 'not today' }],
    });
    expect(run.state).toBe('rejected');
    expect(run.answered).toEqual(['reject plan: not today']);
    expect(run.statements.map((s) => s.status)).toEqual(['skipped', 'skipped']);
  });

  it('is the file docs/testing-your-flows.md shows, as it is', () => {
    expect(readFileSync(join(__dirname, '..', '..', '..', 'docs', 'testing-your-flows.md'), 'utf8')).toContain(readFileSync(__filename, 'utf8'));
  });
});
