/**
 * The `type` of every ApplicationFailure dex raises: activities, workflows and the client raise
 * and compare these, never a string written inline. Pure: workflow code imports it too
 * (@temporalio/common is what @temporalio/workflow re-exports).
 */
import { ApplicationFailure } from '@temporalio/common';

/** ApplicationFailure types by name (each value is its own name). */
export const FAILURE = {
  // A model call (activities/model/model-errors.ts). These seven never retry:
  ModelBadRequest: 'ModelBadRequest',
  ModelAuth: 'ModelAuth',
  ModelPermission: 'ModelPermission',
  ModelNotFound: 'ModelNotFound',
  ModelRequestTooLarge: 'ModelRequestTooLarge',
  ModelContextLength: 'ModelContextLength',
  ModelSpendLimit: 'ModelSpendLimit',
  // … and these retry:
  ModelTimeout: 'ModelTimeout',
  /** The reply stream went silent past its limit (activities/model/stream-watchdog.ts). */
  ModelStreamStalled: 'ModelStreamStalled',
  ModelConflict: 'ModelConflict',
  ModelRateLimited: 'ModelRateLimited',
  ModelOverloaded: 'ModelOverloaded',
  ModelServerError: 'ModelServerError',
  ModelConnection: 'ModelConnection',
  ModelBadResponse: 'ModelBadResponse',
  ModelAborted: 'ModelAborted',
  ModelCallFailed: 'ModelCallFailed',

  // What a model call needs before it can be made.
  UnknownModel: 'UnknownModel',
  CassetteExhausted: 'CassetteExhausted',
  CassetteInvalid: 'CassetteInvalid',
  TranscriptError: 'TranscriptError',
  TemplateMissing: 'TemplateMissing',
  ToolUseNotFound: 'ToolUseNotFound',

  // The host: its repository, worktrees, checkpoints and sandbox.
  InvalidRepository: 'InvalidRepository',
  InvalidWorktreeName: 'InvalidWorktreeName',
  InvalidBranch: 'InvalidBranch',
  WorktreeConflict: 'WorktreeConflict',
  WorktreeMissing: 'WorktreeMissing',
  InvalidCheckpointKey: 'InvalidCheckpointKey',
  NestedGitRepository: 'NestedGitRepository',
  /** A checkpoint met a path deeper or longer than the limits (docs/security.md#bounded-paths). */
  PathBeyondLimits: 'PathBeyondLimits',
  SandboxUnavailable: 'SandboxUnavailable',
  /** A phase's agent cannot run as configured (agent claude-code without a live model, or without the sandbox): it never retries. */
  AgentUnavailable: 'AgentUnavailable',
  /** Installing a worktree's dependencies failed (host/dependencies/): the task stops before any model call. */
  SetupFailed: 'SetupFailed',
  /** A task slot asked of a worker that is not in a fleet (activities/run/task-slot.ts): it never retries. */
  NotInFleet: 'NotInFleet',
  InvalidRoadmap: 'InvalidRoadmap',
  // A forge (host/forge/): a token missing or refused, a repository not found, a request it
  // refuses and a certificate the worker does not trust never retry; the forge down, timing out
  // or rate-limiting does.
  ForgeAuth: 'ForgeAuth',
  ForgeNotFound: 'ForgeNotFound',
  ForgeRequestRefused: 'ForgeRequestRefused',
  /** The forge's TLS certificate did not verify against land.pr.caFile and the machine's CAs (host/forge/forge-ca.ts). */
  ForgeUntrusted: 'ForgeUntrusted',
  ForgeUnavailable: 'ForgeUnavailable',
  /** Another process of this worker has held a repository mirror's lock past the wait (host/git/mirror-lock.ts): it retries. */
  MirrorBusy: 'MirrorBusy',
  /** A model call whose budget reservation was granted still did not fit (workflows/task/agent/agent-phase.ts). */
  BudgetReservation: 'BudgetReservation',
  /** `dex retry --from PHASE` of a run whose earlier phases did not all pass (core/task/rewind.ts). */
  RewindImpossible: 'RewindImpossible',

  // How a run ends when it does not complete (its result rides along as the failure's detail).
  TaskFailed: 'TaskFailed',
  TaskRejected: 'TaskRejected',
  RoadmapFailed: 'RoadmapFailed',
  RoadmapRejected: 'RoadmapRejected',
  LayerFailed: 'LayerFailed',
  SheetFailed: 'SheetFailed',
  SheetRejected: 'SheetRejected',
  SheetRolledBack: 'SheetRolledBack',
  /** A sheet's model statement was planned without `--llm`. */
  NoModel: 'NoModel',
} as const;

/** One of the ApplicationFailure types dex raises. */
export type FailureType = (typeof FAILURE)[keyof typeof FAILURE];

/** A failure that retrying cannot mend, of `type`; `details` ride along (a run's result, for one). */
export function nonRetryable(type: FailureType, message: string, details?: unknown[]): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, details });
}
