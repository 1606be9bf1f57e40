/**
 * What the Temporal server says of the runs whose leftovers `dex clean` found
 * (docs/interfaces.md#dex-clean). A run is described rather than looked up in the visibility
 * list, which may lag: describe answers as the run is the moment a run starts or ends.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { repoNameOf } from '../../core/run/ids';
import { attemptWorkflowId } from '../../core/task/attempts';
import type { TaskResult } from '../../core/task/task-types';
import { runEnd } from '../run/follow-run';
import { DEX_REPO } from '../../core/run/search-attributes';
import { PLAN_KINDS } from '../plan-kinds';
import { runState } from '../render/run-list';
import { RunHistory } from '../run-history';

/** What the server says of one run. */
export type RunFate =
  /** Not ended; or ended, but a child of a run that is not (which may start it again under its id: a roadmap's finalize run). */
  | { kind: 'open'; state: string; under?: string }
  | { kind: 'ended'; state: string; completed: boolean }
  /** The server has no run by that id: it forgot it after its retention period, or the run is another server's. */
  | { kind: 'unknown' };

/** The server's answers, each run asked once. */
export class RunFates {
  private readonly asked = new Map<string, Promise<RunFate>>();

  constructor(
    private readonly client: Client,
    private readonly namespace: string,
  ) {}

  /** What the server says of run `id`. */
  of(id: string): Promise<RunFate> {
    let fate = this.asked.get(id);
    if (!fate) this.asked.set(id, (fate = this.ask(id)));
    return fate;
  }

  private async ask(id: string): Promise<RunFate> {
    let described;
    try {
      described = await this.client.workflow.getHandle(id).describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return { kind: 'unknown' };
      throw err;
    }
    const state = runState(described);
    if (described.status.name === 'RUNNING') return { kind: 'open', state };
    for (const parent of new Set([described.parentExecution?.workflowId, described.rootExecution?.workflowId])) {
      if (parent && parent !== id && (await this.of(parent)).kind === 'open') return { kind: 'open', state, under: parent };
    }
    const parent = described.parentExecution?.workflowId;
    if (parent && described.type === PLAN_KINDS.task.workflowType) {
      const attempt = await this.asAttempt(id, parent, state);
      if (attempt) return attempt;
    }
    return { kind: 'ended', state, completed: described.status.name === 'COMPLETED' };
  }

  /**
   * An attempt of a best-of-N task (a task whose parent is a task, docs/attempts.md) is its
   * parent's: its branch is a result only when the parent completed and chose it; the others'
   * go, however each attempt ended. Undefined for a task under any other parent.
   */
  private async asAttempt(id: string, parent: string, state: string): Promise<RunFate | undefined> {
    const handle = this.client.workflow.getHandle(parent);
    const described = await handle.describe();
    if (described.type !== PLAN_KINDS.task.workflowType) return undefined;
    const completed = described.status.name === 'COMPLETED';
    const chosen = completed ? (await runEnd<TaskResult>(handle)).result?.chosen?.name : undefined;
    const isChosen = chosen !== undefined && attemptWorkflowId(parent, chosen) === id;
    return { kind: 'ended', state: `${state}, attempt of ${parent}, ${isChosen ? 'chosen' : 'not chosen'}`, completed: isChosen };
  }

  /** How long the namespace keeps an ended run, in ms; undefined when the server does not say. */
  async retentionMs(): Promise<number | undefined> {
    try {
      const { config } = await this.client.workflowService.describeNamespace({ namespace: this.namespace });
      const seconds = config?.workflowExecutionRetentionTtl?.seconds;
      return seconds === undefined || seconds === null ? undefined : Number(seconds) * 1000;
    } catch {
      return undefined;
    }
  }

  /** Whether a roadmap run is open (one may still land a task through a worktree of its own). */
  async roadmapOpen(): Promise<boolean> {
    const query = `WorkflowType = "${PLAN_KINDS.roadmap.workflowType}" AND ExecutionStatus = "Running"`;
    for await (const _ of this.client.workflow.list({ query, pageSize: 1 })) return true;
    return false;
  }

  /**
   * The repositories of the open task and roadmap runs whose repository is named one of `names`
   * (or not named yet: a run that has just started), from each run's input.
   */
  async openRepoPaths(names: Set<string>): Promise<Map<string, string>> {
    const types = [PLAN_KINDS.task.workflowType, PLAN_KINDS.roadmap.workflowType].map((t) => `"${t}"`).join(', ');
    const query = `WorkflowType IN (${types}) AND ExecutionStatus = "Running"`;
    const paths = new Map<string, string>();
    for await (const info of this.client.workflow.list({ query })) {
      const named = info.typedSearchAttributes.get(DEX_REPO);
      if (named !== undefined && !names.has(named)) continue;
      const input = await RunHistory.inputOf<{ repoPath?: string }>(this.client.workflow.getHandle(info.workflowId));
      if (input?.repoPath && (named !== undefined || names.has(repoNameOf(input.repoPath)))) paths.set(input.repoPath, info.workflowId);
    }
    return paths;
  }
}
