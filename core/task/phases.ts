import type { RunawayLimits } from './task-types';
import type { Weight } from './weight';

/** Runaway limits when a task sets none. */
export const DEFAULT_RUNAWAY: RunawayLimits = { sameFailure: 3, noChangeTurns: 8 };

/**
 * Which phases a task goes through, where a failed phase sends the work back to, and what
 * each phase is asked to do. Pure data with defaults that `dex.config.yaml` may override.
 */

/** Phases per weight (docs/roadmaps.md). */
export const DEFAULT_PHASES_BY_WEIGHT: Record<Weight, string[]> = {
  trivial: ['implement'],
  small: ['implement', 'test'],
  medium: ['spec', 'implement', 'review', 'test'],
  large: ['research', 'spec', 'design', 'implement', 'review', 'test', 'docs'],
};

/** Step patterns of task types (docs/roadmaps.md): a typed task runs these steps as its phases. */
export const TYPE_PATTERNS: Record<string, string[]> = {
  code_modify: ['read', 'edit', 'test'],
  code_create: ['design', 'write', 'test'],
  research: ['search', 'extract', 'synthesize'],
};

/** Where a failed phase goes back to (docs/roadmaps.md); phases not in the map fail the task. */
export const DEFAULT_RETRY_MAP: Record<string, string> = {
  test: 'implement',
  review: 'implement',
  validate: 'implement',
  design: 'spec',
};

/** Phases that change files: verify runs after them, and a verified one is committed. */
export const CHANGING_PHASES = new Set(['implement', 'test', 'docs', 'edit', 'write', 'finalize', 'rework', 'fix-ci', 'revise']);

/** Finalize phase attempts (conflicts or a failing verify on the merged tree) before the `merge` gate (docs/roadmaps.md#finalize). */
export const DEFAULT_FINALIZE_ATTEMPTS = 2;

/**
 * Phases whose `blocked` answer is a finding that fails the phase (and goes back through the
 * retry map) rather than a question for a person.
 */
export const FINDING_PHASES = new Set(['review', 'validate', 'test', 'design']);

/** The phases of a task: its type's pattern, else its weight's phases. @default weight "trivial" */
export function phasesFor(task: { weight?: Weight; type?: string }, byWeight: Record<Weight, string[]> = DEFAULT_PHASES_BY_WEIGHT): string[] {
  if (task.type) {
    const pattern = TYPE_PATTERNS[task.type];
    if (!pattern) throw new Error(`unknown task type "${task.type}" (use ${Object.keys(TYPE_PATTERNS).join(', ')})`);
    return pattern;
  }
  return byWeight[task.weight ?? 'trivial'];
}

/** What each phase asks of the agent; the rest of the prompt is shared (core/layer/prompt-template.ts). */
export const PHASE_INSTRUCTIONS: Record<string, string> = {
  research: 'Research phase: read the code and notes that bear on the task and summarise what matters for it. Change no files. Your completion summary is kept as the research notes.',
  spec: 'Spec phase: write the specification of the change: behaviour, interfaces, edge cases, how it will be tested. Change no files. Your completion summary is the spec, kept for the later phases.',
  design: 'Design phase: design the change against the spec: modules, data, the order of the work. Change no files. If the spec cannot be designed against, answer blocked with what is wrong with it.',
  implement: 'Implement phase: make the change the task (and its spec and design, when given) asks for.',
  rework:
    'Rework phase: the change this branch made does not hold on the moved base, which is merged into this worktree (not yet committed). Implement the task again on top of it, so the merged tree does what the task asks and verify passes; remove every conflict marker.',
  review: 'Review phase: review the change on this branch against the spec. Change no files. If it has problems, answer blocked with the findings as the reason; else complete with a short review.',
  test: 'Test phase: make sure the change is covered by tests and that they pass; add or fix tests. If the code itself is wrong, answer blocked with the failure.',
  docs: 'Docs phase: update the documentation the change affects.',
  validate: 'Validate phase: check the change against the task as a whole. Change no files. Answer blocked with what is missing, or complete.',
  read: 'Read step: read the code the task touches and summarise how it works. Change no files.',
  edit: 'Edit step: make the change the task asks for, in the code you read.',
  write: 'Write step: create the new code the task and its design ask for.',
  search: 'Search step: find the sources (files, notes) that answer the task. Change no files.',
  extract: 'Extract step: pull the facts the task needs out of the sources found. Change no files.',
  synthesize: 'Synthesize step: write the answer the task asks for from the extracted facts.',
  finalize:
    'Finalize phase: the branch this task was built on has moved, and its newest commits are merged into the worktree (uncommitted). ' +
    'Where the merge conflicts, the files hold conflict markers (<<<<<<<, =======, >>>>>>>): resolve each conflict so that both sides\' intent is kept, ' +
    'remove every marker, and make the verify commands pass on the merged tree. Change nothing else.',
  'fix-ci':
    "Fix-CI phase: this task's pull request is done, but its CI checks fail on its head commit. The failing checks and the end of their logs follow. " +
    'Find the cause in the code or the tests of this change, fix it so the checks pass, and make the verify commands pass. Do not weaken or skip the checks. Change nothing else.',
  revise:
    "Revise phase: a person reviewed this task's pull request. Their review and every comment follow, each with its file, line and the thread before it. " +
    'Make the changes the comments ask for, keep the verify commands passing, and change nothing the review does not ask for. ' +
    'Where a comment is unclear, change nothing for it and ask instead.',
};

/** The stored artifact a decision phase leaves, by the prompt variable later phases see it as. */
export const ARTIFACT_VARIABLES: Record<string, string> = {
  research: 'RESEARCH_NOTES',
  spec: 'SPEC_CONTENT',
  design: 'DESIGN_CONTENT',
  review: 'REVIEW_FINDINGS',
};
