/**
 * The sidecar of a recorded layer or sheet run, `FILE.run.json` beside a `record:FILE` cassette
 * (docs/interfaces.md#recording-a-run): the plan file it ran, what it read of the store (a layer's
 * messages, prior insights and salience), and how it ended, for `dex replay-test` to run it again
 * and compare. Task and roadmap sidecars are in replay-test-record.ts.
 */
import { writeFileSync } from 'node:fs';
import type { TopicMessage } from '../../core/layer/layer-context';
import type { StoredInsight } from '../../store/records';

/** What a layer read of the store when it started: a replay's store starts from it. */
export interface LayerWorld {
  /** The targets' messages within the layer's longest lookback. */
  messages: TopicMessage[];
  /** The targets' (and the global topic's) insights from earlier runs. */
  insights: StoredInsight[];
  /** Each target's salience balance. */
  salience: Record<string, number>;
}

/** How a layer run ended, in what a replay must match. */
export interface LayerOutcome {
  state: string;
  /** `success`, `partial`, `dry` or `failed`; absent when the run failed before its record. */
  status?: string;
  targets: { id: string; status: string }[];
  /** Each insight the run stored, by its key `<target>/<node>`. */
  insights: { key: string; topic: string; category: string; content: string; unparsed: boolean }[];
  /** The rendered prompt of each model call, by `<target>/<node>`. */
  prompts: Record<string, string>;
}

/** How a sheet run ended, in what a replay must match. */
export interface SheetOutcome {
  state: string;
  /** `tree`: a task statement's, the git tree of the commit its task made (its value), which a replay compares instead of the commit. */
  statements: { id: string; status: string; value?: string; error?: string; tree?: string | null }[];
}

/** A repository a sheet's task statements work on, as it was when the recording started: a replay works on a copy of it. */
export interface RecordedRepo {
  path: string;
  branch: string;
  startCommit: string;
}

/** A recorded layer run. */
export interface RecordedLayer {
  version: 1;
  kind: 'layer';
  /** The layer file (absolute). */
  file: string;
  workflowId: string;
  /** The run's clock at its start (ms): the replay's lookbacks count back from it. */
  clock: number;
  /** The sha256 of each prompt template's text, by path, as recorded. */
  templates: Record<string, string>;
  world: LayerWorld;
  end: LayerOutcome;
}

/** A recorded sheet run. */
export interface RecordedSheet {
  version: 1;
  kind: 'sheet';
  /** The sheet file (absolute). */
  file: string;
  workflowId: string;
  /** Whether the run waited at the `plan` gate (`--confirm`). */
  confirm: boolean;
  /** The repositories of its task statements (none: it has none, or it was recorded before they were kept). */
  repos?: RecordedRepo[];
  end: SheetOutcome;
}

/** A recorded layer or sheet run. */
export type RecordedPlan = RecordedLayer | RecordedSheet;

/** Writes the sidecar of a recorded layer or sheet run. */
export function writePlanSidecar(cassette: string, run: RecordedPlan): void {
  writeFileSync(`${cassette}.run.json`, `${JSON.stringify(run, null, 2)}\n`);
}

/** `run` checked as a layer or sheet sidecar; `fail` says what is wrong (InvalidInput, exit 2). */
export function checkRecordedPlan(run: Partial<RecordedLayer> | Partial<RecordedSheet>, fail: (what: string) => never): RecordedPlan {
  for (const field of ['file', 'workflowId'] as const) {
    if (typeof run[field] !== 'string' || !run[field]) fail(`"${field}" must be a non-empty string`);
  }
  if (typeof run.end?.state !== 'string') fail('"end" must hold "state"');
  if (run.kind === 'layer') {
    const layer = run as Partial<RecordedLayer>;
    if (typeof layer.clock !== 'number') fail('a layer run needs "clock"');
    if (!layer.world || !Array.isArray(layer.world.messages) || !Array.isArray(layer.world.insights)) fail('a layer run needs "world" with "messages" and "insights"');
    if (!Array.isArray(layer.end?.targets) || !Array.isArray(layer.end?.insights)) fail('"end" must hold "targets" and "insights"');
  } else {
    const sheet = run as Partial<RecordedSheet>;
    if (!Array.isArray(sheet.end?.statements)) fail('"end" must hold "statements"');
    const fields = ['path', 'branch', 'startCommit'] as const;
    if (sheet.repos !== undefined && (!Array.isArray(sheet.repos) || sheet.repos.some((r) => fields.some((f) => typeof r?.[f] !== 'string' || !r[f])))) {
      fail('"repos" must be a list of { path, branch, startCommit }');
    }
  }
  return run as RecordedPlan;
}
