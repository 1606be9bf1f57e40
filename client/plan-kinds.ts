/**
 * The plan kinds dex runs, one entry each: the workflow type its runs have, the name of the `dex`
 * command that starts one (it checks the request and builds the workflow's input with the kind's
 * request module), and how a finished run's result reads. The CLI's commands, `dex list`, `dex status`
 * and driveRun read this table; a new kind is one more entry (docs/adding-a-plan-kind.md).
 */
import type * as Workflows from '../workflows';
import { renderLayerRun } from './render/render-layer-run';
import { renderRoadmapResult } from './render/render-roadmap';
import { renderSheetResult } from './render/render-sheet';
import { renderTaskResult } from './render/render-task';

// Types only: the client starts workflows by name and never loads workflow code, yet a renamed
// workflow or a changed input fails the type check here and in driveRun.
type DexWorkflows = typeof Workflows;
/** The name of a workflow type the worker registers. */
export type WorkflowName = keyof DexWorkflows;
/** The arguments workflow `W` starts with. */
export type WorkflowArgs<W extends WorkflowName> = Parameters<DexWorkflows[W]>;
/** What workflow `W` returns. */
export type WorkflowResult<W extends WorkflowName> = Awaited<ReturnType<DexWorkflows[W]>>;

/** One plan kind, run as workflow type `W`. */
interface PlanKind<W extends WorkflowName = WorkflowName> {
  /** The workflow type of its runs, the name the client starts it by. */
  workflowType: W;
  /** The `dex` command that starts one (client/cli.ts loads it: this table loads no command, so no command's imports lead back here). */
  command: string;
  /** A finished run's result as lines of text, under its state line. */
  render(result: WorkflowResult<W>): string[];
}

const kind = <W extends WorkflowName>(entry: PlanKind<W>): PlanKind<W> => entry;

/** Every plan kind, by name. */
export const PLAN_KINDS = {
  /** One coding task on a repository (client/requests/task-request.ts). */
  task: kind({
    workflowType: 'taskWorkflow',
    command: 'task',
    render: renderTaskResult,
  }),
  /** A ROADMAP.md of dependent tasks (client/requests/roadmap-request.ts). */
  roadmap: kind({
    workflowType: 'roadmapWorkflow',
    command: 'run',
    render: renderRoadmapResult,
  }),
  /** A layer over many targets (client/requests/layer-request.ts). */
  layer: kind({
    workflowType: 'layerWorkflow',
    command: 'layer',
    render: renderLayerRun,
  }),
  /** A sheet of statements (client/requests/sheet-file.ts). */
  sheet: kind({
    workflowType: 'sheetWorkflow',
    command: 'sheet',
    render: renderSheetResult,
  }),
};

/** The name of a plan kind. */
export type PlanKindName = keyof typeof PLAN_KINDS;
/** The workflow type of plan kind `K`. */
export type KindWorkflow<K extends PlanKindName> = (typeof PLAN_KINDS)[K]['workflowType'];

/** The plan kind whose runs have workflow type `workflowType`; undefined for any other (a layer's per-target child). */
export function planKindOf(workflowType: string): PlanKind | undefined {
  return Object.values(PLAN_KINDS).find((k: PlanKind) => k.workflowType === workflowType);
}
