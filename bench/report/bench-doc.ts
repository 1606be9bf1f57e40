/** The shape of bench/results/latest.json, which bench/write-report.ts and the report sections read. */
import type { B1Result } from '../scenarios/b1-overhead';
import type { B2Result } from '../scenarios/b2-concurrency';
import type { B3Result } from '../scenarios/b3-crash';
import type { B4Result } from '../scenarios/b4-history';
import type { B5Result } from '../scenarios/b5-gates';
import type { TurnResult } from '../scenarios/b6-turns';
import type { ReadyResult } from '../scenarios/b7-worktree-ready';
import type { ScaleResult } from '../scenarios/b8-layer-scale';

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
