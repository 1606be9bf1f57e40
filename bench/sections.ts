import { runB1 } from './b1-overhead';
import { runB2 } from './b2-concurrency';
import { runB3 } from './b3-crash';
import { runB4 } from './b4-history';
import { runB5 } from './b5-gates';
import { runTurns } from './b6-turns';
import type { BenchServer } from './dex-env';
import type { BenchParams } from './params';

/** One bench section: measures on `server` and returns what the report shows. */
export type Section = (server: BenchServer, params: BenchParams, log: (line: string) => void) => Promise<unknown>;

/** The sections in the order they run; roadmap and layer benchmarks join this list when they exist. */
export const SECTIONS: [string, Section][] = [
  ['b1', runB1],
  ['b4', runB4],
  ['b5', runB5],
  ['turn', runTurns],
  ['b2', runB2],
  ['b3', runB3],
];
