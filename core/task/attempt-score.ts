import { formatUsd } from '../text/spending';
import type { AttemptEvidence, AttemptRow, AttemptWeights } from './attempts';

/**
 * The default weights (docs/attempts.md#how-the-choice-is-made): a fixed test outweighs a small
 * difference in size, a broken one or a failing check outweighs a fixed one, and cost decides
 * only between attempts alike in everything else.
 */
export const DEFAULT_WEIGHTS: AttemptWeights = { testFixed: 10, testBroken: 20, checkFailed: 5, line: 0.05, review: 5, usd: 1 };

/** An attempt's score from its evidence and what it cost: higher is better. */
export function scoreOf(evidence: AttemptEvidence, costUsd: number, weights: AttemptWeights): number {
  const review = evidence.review === 'approve' ? weights.review : evidence.review === 'reject' ? -2 * weights.review : 0;
  const score =
    weights.testFixed * evidence.testsFixed.length -
    weights.testBroken * evidence.testsBroken.length -
    weights.checkFailed * evidence.checksFailed.length -
    weights.line * evidence.lines +
    review -
    weights.usd * costUsd;
  return Math.round(score * 1000) / 1000;
}

/** The attempts with their scores, and the best passing one: highest score, then the smaller change, then the earlier letter. */
export function rankAttempts(rows: AttemptRow[], weights: AttemptWeights): { rows: AttemptRow[]; best?: AttemptRow } {
  const scored = rows.map((r) => (r.evidence && r.state === 'completed' ? { ...r, score: scoreOf(r.evidence, r.costUsd, weights) } : r));
  const eligible = scored.filter((r) => r.evidence?.passed && r.state === 'completed' && r.evidence.review !== 'reject');
  const best = [...eligible].sort((a, b) => b.score! - a.score! || a.evidence!.lines - b.evidence!.lines || a.name.localeCompare(b.name))[0];
  return { rows: scored, best };
}

/** Why `chosen` was chosen, in a line: `3 tried, 2 passed, chose C: all tests pass, 14 lines against 61, review approve, $0.41`. */
export function describeChoice(rows: AttemptRow[], chosen: AttemptRow): string {
  const finished = rows.filter((r) => r.state !== 'pending');
  const passed = rows.filter((r) => r.evidence?.passed && r.state === 'completed');
  const e = chosen.evidence;
  const others = passed.filter((r) => r.name !== chosen.name).map((r) => r.evidence!.lines);
  const why = !e
    ? ['no evidence']
    : [
        e.passed ? 'all tests pass' : 'tests fail',
        e.testsFixed.length ? `${e.testsFixed.length} fixed` : undefined,
        e.testsBroken.length ? `${e.testsBroken.length} broken` : undefined,
        e.checksFailed.length ? `${e.checksFailed.join(', ')} failing` : undefined,
        `${e.lines} lines${others.length ? ` against ${others.join(', ')}` : ''}`,
        e.review ? `review ${e.review}` : undefined,
        formatUsd(chosen.costUsd),
      ].filter(Boolean);
  return `${finished.length} tried, ${passed.length} passed, chose ${chosen.name}: ${why.join(', ')}`;
}

/** The evidence of an attempt that ended: tests fixed and broken against the base's failures, its own checks, its change's size. */
export function evidenceOf(args: {
  verifyPassed: boolean;
  baseline?: string[];
  /** The base's failures that still fail after the attempt (verify's `preExisting`). */
  stillFailing?: string[];
  newFailures?: string[];
  checksFailed: string[];
  lines: number;
  files: number;
  review?: AttemptEvidence['review'];
}): AttemptEvidence {
  const failing = new Set(args.stillFailing ?? []);
  const testsFixed = (args.baseline ?? []).filter((t) => !failing.has(t));
  const testsBroken = args.newFailures ?? [];
  return {
    passed: args.verifyPassed && testsBroken.length === 0 && args.checksFailed.length === 0,
    testsFixed,
    testsBroken,
    checksFailed: args.checksFailed,
    lines: args.lines,
    files: args.files,
    ...(args.review ? { review: args.review } : {}),
  };
}
