import type * as B1 from './scenarios/b1-overhead';
import type * as B2 from './scenarios/b2-concurrency';
import type * as B3 from './scenarios/b3-crash';
import type * as B4 from './scenarios/b4-history';
import type * as B5 from './scenarios/b5-gates';
import type * as Turns from './scenarios/b6-turns';
import type * as Ready from './scenarios/b7-worktree-ready';
import type * as Scale from './scenarios/b8-layer-scale';
import type { BenchServer } from './dex-env';
import type { BenchParams } from './params';

/** One bench section: measures on `server` and returns what the report shows. */
export type Section = (server: BenchServer, params: BenchParams, log: (line: string) => void) => Promise<unknown>;

/**
 * The sections in the order they run, each loaded only by the process that runs it (bench/run-section.ts;
 * require, as this CommonJS code runs under tsx's CommonJS hook): bench/run.ts needs their names alone.
 * Roadmap and layer benchmarks join this list when they exist.
 */
export const SECTIONS: [string, () => Section][] = [
  ['b1', () => (require('./scenarios/b1-overhead') as typeof B1).runB1],
  ['b4', () => (require('./scenarios/b4-history') as typeof B4).runB4],
  ['b5', () => (require('./scenarios/b5-gates') as typeof B5).runB5],
  ['turn', () => (require('./scenarios/b6-turns') as typeof Turns).runTurns],
  ['b2', () => (require('./scenarios/b2-concurrency') as typeof B2).runB2],
  ['b3', () => (require('./scenarios/b3-crash') as typeof B3).runB3],
  ['ready', () => (require('./scenarios/b7-worktree-ready') as typeof Ready).runReady],
  ['scale', () => (require('./scenarios/b8-layer-scale') as typeof Scale).runScale],
];
