/** The shape of bench/results/latest.json, which bench/write-report.ts and the report sections read. */
import type { B1Result } from './b1-overhead';
import type { B2Result } from './b2-concurrency';
import type { B3Result } from './b3-crash';
import type { B4Result } from './b4-history';
import type { B5Result } from './b5-gates';
import type { TurnResult } from './b6-turns';
import type { ReadyResult } from './b7-worktree-ready';
import type { ScaleResult } from './b8-layer-scale';

/** A results document as bench/run.ts writes it. */
export interface BenchDoc {
  startedAt: string;
  seconds: number;
  quick: boolean;
  machine: { cpus: number; cpuModel: string; memGiB: number; node: string };
  b1: B1Result;
  b2: B2Result;
  b3: B3Result;
  b4: B4Result;
  b5: B5Result;
  turn?: TurnResult;
  ready?: ReadyResult;
  scale?: ScaleResult;
}
