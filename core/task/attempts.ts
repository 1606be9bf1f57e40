/**
 * Best of N (docs/attempts.md): several attempts at one task at once, each a child task run on
 * its own branch, and the one whose evidence is best chosen to land. These are the shapes the
 * config, the workflow, the views and the client share; the scoring itself is ./attempt-score.ts.
 */

/** What may differ between attempts; unset fields are the task's own. */
export interface AttemptVariant {
  /** The model of every phase of this attempt. */
  model?: string;
  /** Sampling temperature of its model calls (ignored in phases that think, which need 1). */
  temperature?: number;
  /** A line added to the task's description for this attempt only ("try the smallest change"). */
  hint?: string;
}

/** How much each kind of evidence counts; a failing attempt is never chosen by score. */
export interface AttemptWeights {
  /** Per test that failed on the base and passes after the attempt. */
  testFixed: number;
  /** Per test that the attempt made fail (subtracted). */
  testBroken: number;
  /** Per project check (lint, typecheck, build) failing because of the attempt (subtracted). */
  checkFailed: number;
  /** Per changed line, added or removed (subtracted): the smaller change wins a tie of the rest. */
  line: number;
  /** An AI review that approves adds this; one that rejects subtracts it twice. */
  review: number;
  /** Per dollar spent (subtracted). */
  usd: number;
}

/** `attempts:` of a task (dex.config.yaml, a roadmap task line, `dex task --attempts N`). */
export interface AttemptsConfig {
  /** How many attempts run at once (2 to 8). */
  count: number;
  /** Per attempt, in order, cycled when shorter than `count`; absent: the same engine with varied sampling. */
  variants?: AttemptVariant[];
  /** `first-pass`: the first attempt that passes every check (and the review, when there is one) is chosen, the others cancelled. @default all */
  stopWhen?: 'first-pass' | 'all';
  /** Each attempt's own spending cap (USD); the task's budget, when set, bounds them all together. */
  attemptBudgetUsd?: number;
  /** After this long the attempts still running are cancelled and the best finished one is chosen. */
  timeLimitMs?: number;
  /** `person`: the choice waits at the `choose` gate for a person (`dex approve`, or `dex choose ID B`). @default evidence */
  choose?: 'evidence' | 'person';
  weights?: Partial<AttemptWeights>;
}

/** What one attempt's run proved, measured by the attempt itself as it ends (workflows/task/attempts/). */
export interface AttemptEvidence {
  /** Its verify passed (against the baseline, when there is one) and no check of its own failed. */
  passed: boolean;
  testsFixed: string[];
  testsBroken: string[];
  /** Checks that failed because of the attempt (not those failing on the base too). */
  checksFailed: string[];
  /** Lines added plus lines removed against the base, and files touched. */
  lines: number;
  files: number;
  /** The verdict of the task's AI review (an `afterVerify` gate `by: model`), when it has one. */
  review?: 'approve' | 'reject' | 'ask';
}

/** One attempt as the status, the result and the proposal show it. */
export interface AttemptRow {
  /** A, B, C… */
  name: string;
  workflowId: string;
  state: 'pending' | 'running' | 'waiting' | 'completed' | 'failed' | 'rejected' | 'cancelled';
  /** What differed: `temperature 0.7`, `model claude-opus-4`, `hint: …`. */
  variant?: string;
  branch?: string;
  commit?: string;
  /** The commit its branch started from (what `dex diff ID B` compares against). */
  baseSha?: string;
  costUsd: number;
  evidence?: AttemptEvidence;
  /** Its score, when it finished with evidence. */
  score?: number;
  /** Why it did not pass or finish, in a line. */
  note?: string;
}

/** Which attempt was chosen, by whom and why. */
export interface AttemptChoice {
  name: string;
  /** `evidence`, or the person who chose at the `choose` gate. */
  by: string;
  /** `3 tried, 2 passed, chose C: all tests pass, 14 lines against 61, review approve, $0.41`. */
  reason: string;
}

/** The run id of attempt `name` of the best-of-N run `workflowId`: its branch is `dex/<that id>`. */
export const attemptWorkflowId = (workflowId: string, name: string): string => `${workflowId}-${name}`;

/** The attempts' letters: A, B, C… */
export const attemptName = (index: number): string => String.fromCharCode(65 + index);

/** The variant attempt `index` runs: the config's (cycled), else the same engine with temperatures spread from 1 down. */
export function variantOf(config: AttemptsConfig, index: number): AttemptVariant {
  const listed = config.variants?.length ? config.variants[index % config.variants.length] : undefined;
  if (listed) return listed;
  return { temperature: Math.round((1 - (0.6 * index) / Math.max(1, config.count - 1)) * 100) / 100 };
}

/** A variant in a few words, as the table shows it. */
export function describeVariant(variant: AttemptVariant): string | undefined {
  const parts = [
    variant.model ? `model ${variant.model}` : undefined,
    variant.temperature !== undefined ? `temperature ${variant.temperature}` : undefined,
    variant.hint ? `hint: ${variant.hint}` : undefined,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : undefined;
}

/** The most attempts a task runs at once. */
export const MAX_ATTEMPTS = 8;

/** True for a count of attempts one may ask for: a whole number from 1 (which turns attempts off) to {@link MAX_ATTEMPTS}. */
export const isAttemptCount = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_ATTEMPTS;

/** The configured `attempts` with `count` from a roadmap line or `dex task --attempts N` over it: absent leaves them, 1 turns them off. */
export function withAttemptCount(config: AttemptsConfig | undefined, count: number | undefined): AttemptsConfig | undefined {
  if (count === undefined) return config;
  return count > 1 ? { ...config, count } : undefined;
}
