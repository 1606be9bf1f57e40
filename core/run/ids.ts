/**
 * Every id and idempotency key dex builds: workflow ids, branch and worktree names, transcript,
 * artifact and store keys. Pure, so workflow code calls them too. The strings are part of
 * recorded histories (test/histories/) and of stored rows: changing one breaks replay and the
 * resumption of running work. Never parse an id to recover what it was built from; pass that
 * data as input.
 */

/** A name made safe for a workflow id and a branch name; a safe name comes back unchanged. */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'repo';
}

/** A short, readable id for a task from its title: at most 32 characters, cut at a word boundary. */
export function taskIdFromTitle(title: string): string {
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  if (slug.length <= 32) return slug || 'task';
  const cut = slug.slice(0, 33);
  const boundary = cut.lastIndexOf('-');
  return boundary > 0 ? cut.slice(0, boundary) : cut.slice(0, 32);
}

/** The `n`th workflow id under `prefix` (docs/interfaces.md#plans-workflows-and-ids: readable, stable ids); the client takes the first free one. */
export const numberedWorkflowId = (prefix: string, n: number): string => `${prefix}-${n}`;

/**
 * What the store key of every row a workflow keeps itself starts with: its transcripts, artifacts
 * and outputs (the keys below that begin with the workflow id and a slash). `dex log` finds a run's
 * transcripts by it.
 */
export const workflowKeyPrefix = (workflowId: string): string => `${workflowId}/`;

// ---- tasks ----

/** The id prefix of a `dex task` run on the repository `repoName`. */
export const taskWorkflowIdPrefix = (repoName: string, taskId: string): string => `task-${safeName(repoName)}-${taskId}`;

/** The id prefix of the runs that take up task run `taskWorkflowId` at a phase (`dex retry`): `<id>-retry-<n>`. */
export const retryWorkflowIdPrefix = (taskWorkflowId: string): string => `${taskWorkflowId}-retry`;

/** The branch a task works on. */
export const taskBranch = (taskWorkflowId: string): string => `dex/${taskWorkflowId}`;

/** The hidden ref on the forge where a fleet task's worktree is recorded, so another worker can take it up (docs/fleet.md#nothing-lost). */
export const taskStateRef = (taskWorkflowId: string): string => `refs/dex/runs/${taskWorkflowId}`;

/** The name of a task's worktree folder (under `<dexHome>/worktrees`). */
export const taskWorktreeName = (taskWorkflowId: string): string => taskWorkflowId;

// The inverses below are for `dex clean`, which finds leftovers on disk before it knows their runs.

/** The task run `branch` belongs to (the inverse of {@link taskBranch}); undefined for a branch dex does not name. */
export const runOfTaskBranch = (branch: string): string | undefined => (/^dex\/./.test(branch) ? branch.slice('dex/'.length) : undefined);

/** The task run whose worktree folder is `name` (the inverse of {@link taskWorktreeName}). */
export const runOfTaskWorktree = (name: string): string => name;

/** One attempt at a phase: its transcript id, its phase record's key and its checkpoint commit's key. */
export const phaseAttemptKey = (taskWorkflowId: string, phase: string, attempt: number): string =>
  `${taskWorkflowId}/${phase}/${attempt}`;

/** The artifact a phase leaves for later phases' prompts (a spec, a design, review findings). */
export const phaseArtifactId = (taskWorkflowId: string, phase: string): string => `${taskWorkflowId}/artifact/${phase}`;

/** The stored report of the verify run after `turn` of a transcript. */
export const verifyReportId = (transcriptId: string, turn: number): string => `${transcriptId}/verify/${turn}`;

/** Where a task's setup report is stored (kind `setup`; docs/real-repositories.md). */
export const setupReportId = (workflowId: string): string => `${workflowId}/setup`;

/** Where verify's structured result sits next to its report, for a retried attempt. */
export const verifyResultKey = (reportId: string): string => `${reportId}#result`;

/** One model call: the reply at `replySeq` of a transcript (its accounting row and its replay-cassette claim). */
export const modelCallKey = (transcriptId: string, replySeq: number): string => `${transcriptId}#${replySeq}`;

// ---- roadmaps ----

/** A roadmap run's workflow id: one per repository and roadmap (`roadmapHash` covers its path and text). */
export const roadmapWorkflowId = (repoName: string, roadmapHash: string): string => `roadmap-${safeName(repoName)}-${roadmapHash}`;

/** The workflow id of a roadmap task's child run. */
export const roadmapTaskWorkflowId = (repoName: string, taskId: string, roadmapHash: string): string =>
  `task-${safeName(repoName)}-${taskId}-${roadmapHash}`;

/** The key of landing a roadmap task on the base branch (the landing commit's trailer). */
export const landingKey = (roadmapWorkflowId: string, taskId: string): string => `${roadmapWorkflowId}/${taskId}`;

// ---- layers ----

/** The id prefix of a run of the layer `layerName`. */
export const layerWorkflowIdPrefix = (layerName: string): string => `layer-${safeName(layerName)}`;

/** The workflow id of one target's child run; the layer run's workflow id is its `runId`. */
export const layerTargetWorkflowId = (runId: string, target: string): string => `${runId}/${target}`;

/** The key of what a node (or a step such as `salience`) does for a target: transcripts, insights, fetched contexts, ledger entries. */
export const layerNodeKey = (runId: string, target: string, node: string): string => `${runId}/${target}/${node}`;

/** The salience ledger entry a topic earns for an imported message. */
export const salienceEarnKey = (messageId: string): string => `earn:${messageId}`;

/** The store artifact holding the prompt template whose text has sha256 `sha` (core/layer/layer-types.ts TemplateRefs). */
export const layerTemplateArtifactId = (sha: string): string => `layer-template/${sha}`;

/**
 * The store artifacts a layer run's chain keeps when it continues as new (docs/layers.md#continue-as-new):
 * `chainKey` is the workflow id and its first run's id, so a later run under the same id keeps none of them.
 */
export const layerChainTargetsId = (chainKey: string): string => `layer-chain/${chainKey}/targets`;
/** The artifact holding the target results of run `run` (1 for the first) of a layer run's chain. */
export const layerChainResultsId = (chainKey: string, run: number): string => `layer-chain/${chainKey}/results-${run}`;

// ---- sheets ----

/** The id prefix of a run of the sheet `sheetName`. */
export const sheetWorkflowIdPrefix = (sheetName: string): string => `sheet-${safeName(sheetName)}`;

/** A statement's action (`do`) or its undo: the key of its command's stored output or its model transcript. */
export const sheetStepKey = (sheetWorkflowId: string, statementId: string, step: 'do' | 'undo'): string =>
  `${sheetWorkflowId}/${statementId}/${step}`;

/** The task id of a statement's `task` action (or its undo). */
export const sheetTaskId = (statementId: string, step: 'do' | 'undo'): string => `${statementId}${step === 'undo' ? '-undo' : ''}`;

/** The workflow id of a statement's `task` action (or its undo), a child of the sheet run. */
export const sheetTaskWorkflowId = (sheetWorkflowId: string, statementId: string, step: 'do' | 'undo'): string =>
  `${sheetWorkflowId}-${sheetTaskId(statementId, step)}`;

/** The stored output of a sheet command run under `stepKey`. */
export const sheetCommandOutputId = (stepKey: string): string => `${stepKey}/output`;

/** The stored outcome of a sheet command run under `stepKey`, which a retried attempt returns. */
export const sheetCommandOutcomeId = (stepKey: string): string => `${stepKey}/outcome`;

/**
 * The artifact holding what run `run` (1 for the first) of a sheet's chain hands on when it continues
 * as new (docs/sheets.md#continue-as-new); `chainKey` as for {@link layerChainResultsId}.
 */
export const sheetChainChunkId = (chainKey: string, run: number): string => `sheet-chain/${chainKey}/chunk-${run}`;

/** A repository's name as ids and `DexRepo` show it: its folder's name, made safe. */
export const repoNameOf = (repoPath: string): string => safeName(repoPath.split('/').filter(Boolean).pop() ?? '');
