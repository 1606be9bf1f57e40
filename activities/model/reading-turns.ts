/**
 * Reading turns in one model call (docs/performance.md#reading-turns-in-one-call): after a reply
 * whose tool calls are all quick reads, which the call has run and stored (reads-in-turn.ts), the
 * call answers the next turn itself instead of reporting to the workflow, and so on while the
 * workflow's room for turns and the time allowed last. Every turn is stored as a turn of its own
 * call is (the user message with the reads' results, then the reply), so a retry reuses every
 * reply and read already stored and no model call is asked again.
 */
import { leftOf, type Allowance } from '../../core/run/budget-reservation';
import type { TokenUsage } from '../../core/run/run-types';
import { addUsage, addUsd } from '../../core/run/usage';

/** How far a model call may go on after a reply that only read. */
export interface ReadingChain {
  /** Turns it may answer after its first: the workflow's room before its turn cap or its runaway limit. */
  moreTurns: number;
  /** It starts no further turn once it has worked this long, so a pause or a person watching waits at most about this. */
  forMs: number;
}

/** What of a model call's input a chain reads and sets (call-model.ts's `ModelCallInput`). */
interface ChainedInput {
  userSeq: number;
  followUp?: { toolUseIds?: string[] };
  allowance?: Allowance;
  chain?: ReadingChain;
}

/** What of a turn's result a chain reads and sums (call-model.ts's `ModelCallResult`). */
interface ChainedResult {
  usage: TokenUsage;
  costUsd: number;
  reused: boolean;
  toolsRun?: boolean;
  toolUses: { id: string }[];
  turns?: number;
}

/** Answers `input`'s turn with `turn`, then the turns after it while its replies only read and the chain allows. */
export async function goOnReading<I extends ChainedInput, R extends ChainedResult, D extends { deferred: true }>(input: I, turn: (input: I) => Promise<R | D>): Promise<R | D> {
  const started = Date.now();
  const first = await turn(input);
  if ('deferred' in first || !input.chain) return first;
  const { moreTurns, forMs } = input.chain;
  let last = first;
  let spent = { tokens: first.usage, costUsd: first.costUsd, reused: first.reused };
  let turns = 1;
  for (let userSeq = input.userSeq + 2; last.toolsRun && turns <= moreTurns && Date.now() - started < forMs; userSeq += 2) {
    const followUp = { toolUseIds: last.toolUses.map((u) => u.id) };
    // A turn that no longer fits what is left of the allowance is left to the workflow, which reserves for it.
    const next = await turn({ ...input, userSeq, followUp, allowance: input.allowance && leftOf(input.allowance, spent) });
    if ('deferred' in next) break;
    spent = { tokens: addUsage(spent.tokens, next.usage), costUsd: addUsd(spent.costUsd, next.costUsd), reused: spent.reused && next.reused };
    last = next;
    turns++;
  }
  return turns === 1 ? first : { ...last, usage: spent.tokens, costUsd: spent.costUsd, reused: spent.reused, turns };
}
