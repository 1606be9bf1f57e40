import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import * as workflows from '../../workflows';
import { workflowBundle } from '../../worker/start-worker';
import { quietRuntime } from '../support/env/dev-server-env';
import { current, recorded, released, RUNS, type Recorded } from '../support/plans/recorded-histories';

/**
 * Every history under test/histories/ replayed with today's workflow code by one replay worker, and,
 * for each workflow type, a copy altered here that must fail with a determinism error: proof that
 * the replay can fail. The integration tests record the current ones (test/histories/*.json): a
 * test names its run with `dex.recordHistory(workflowId, file)` (test/support/env/dex-environment.ts), and
 * `DEX_RECORD_HISTORIES=1 npx vitest run test/<that file>` writes it again. Each release's
 * histories stay under test/histories/released/<date>/ as they were recorded, never re-recorded:
 * a run that release started may still be open when today's worker picks it up
 * (docs/production.md#upgrading-dex-with-runs-in-flight), so they must replay too.
 */

/** `h` with its first scheduled activity renamed: the history says another activity ran where today's code schedules that one. */
function altered(h: Recorded): Recorded & { renamed: string } {
  const copy = structuredClone(h);
  const first = copy.events.find((e) => e.activityTaskScheduledEventAttributes)?.activityTaskScheduledEventAttributes;
  if (!first) throw new Error(`test/histories/${h.file} schedules no activity: there is nothing to alter`);
  const renamed = first.activityType.name as string;
  first.activityType.name = `${renamed}Altered`;
  return { ...copy, renamed };
}

/** The first current history of each workflow type, altered. */
const alteredPerType = [...new Set(current.map((h) => h.workflowType))].map((type) => altered(current.find((h) => h.workflowType === type)!));

/** How each replay ended, by label (a file, or `altered <file>`): no error when it replayed cleanly. */
const outcomes = new Map<string, Error | undefined>();

beforeAll(async () => {
  quietRuntime();
  const runs = [...recorded.map((h) => ({ label: h.file, h })), ...alteredPerType.map((h) => ({ label: `altered ${h.file}`, h }))];
  const replays = Worker.runReplayHistories(
    { workflowBundle: await workflowBundle() },
    runs.map(({ h }) => ({ workflowId: h.workflowId, history: historyFromJSON({ events: h.events }) })),
  );
  // The replay worker replays the histories one at a time and reports them in the order given.
  let at = 0;
  for await (const { error } of replays) outcomes.set(runs[at++].label, error);
});

describe('the recorded histories', () => {
  it('hold a history of every workflow type dex registers', () => {
    expect(new Set(current.map((h) => h.workflowType))).toEqual(new Set(Object.keys(workflows)));
  });

  it('keep the histories of at least one earlier release', () => {
    expect(released.length).toBeGreaterThan(0);
  });

  it.each(current.map((h) => [h.file, h] as const))('%s is the run it is said to be', (file, h) => {
    expect(RUNS[file], `describe test/histories/${file} in RUNS`).toBeDefined();
    RUNS[file].covers(h);
    // Its recorder still names it (dex.recordHistory), so DEX_RECORD_HISTORIES=1 writes it again.
    expect(readFileSync(join(__dirname, '..', '..', RUNS[file].recordedBy), 'utf8')).toContain(`'${file}'`);
  });

  it.each(recorded.map((h) => [h.file, h.workflowType] as const))("%s (%s) replays with today's workflow code", (file) => {
    expect(outcomes.has(file)).toBe(true);
    expect(outcomes.get(file)).toBeUndefined();
  });
});

describe('an altered history per workflow type', () => {
  it.each(alteredPerType.map((h) => [h.workflowType, h.file, h.renamed] as const))(
    '%s (%s, first activity %s renamed) fails with a determinism error',
    (_type, file, renamed) => {
      const error = outcomes.get(`altered ${file}`);
      expect(error).toBeInstanceOf(DeterminismViolationError);
      // It fails at the renamed activity, not somewhere the unaltered history would fail too.
      expect(error?.message).toContain(`'${renamed}Altered'`);
    },
  );
});
