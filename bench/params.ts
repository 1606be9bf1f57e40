/** The systems B1 compares, in chart order (here, not in b1-overhead.ts, so bench/run.ts need not load the sections). */
export const B1_SYSTEMS = ['plain', 'dex', 'dexLocal', 'langgraph'] as const;
/** One system of B1. */
export type B1System = (typeof B1_SYSTEMS)[number];

/** How much each section measures: the full run, or the quick smoke run (under two minutes). */
export interface BenchParams {
  quick: boolean;
  b1: { n: number[]; runs: number; warmup: number };
  /** B2: the dex batches at each M (their median is reported). */
  b2: { m: number[]; steps: number; latencyMs: number; batches: number };
  b3: { scenarios: ('mid-activity' | 'between-activities')[] };
  b4: { turns: number[]; probeMaxSteps: number };
  b5: { parked: number[]; signalRuns: number };
  /**
   * The real-turn section: model latencies, and the short and long task whose difference is one turn's cost;
   * at latency 0 (the target's figure) `pairsAtZero` pairs with a longer long task, for a steadier median.
   */
  turn: { latenciesMs: number[]; turns: [number, number]; pairsAtZero: number; longAtZero: number };
  /** Worktree ready time: how often each way of making a worktree ready runs (the median is reported). */
  ready: { runs: number };
  /** A layer at scale: topics with targets as activities, topics with a child workflow each (today's code before), lanes, the model's latency. */
  scale: { topics: number; workflowTopics: number; concurrency: number; latencyMs: number };
}

/** The full benchmark: the sizes the issue names. */
export const FULL: BenchParams = {
  quick: false,
  b1: { n: [1, 5, 20, 100], runs: 20, warmup: 2 },
  b2: { m: [1, 4, 16, 64, 256], steps: 10, latencyMs: 200, batches: 5 },
  b3: { scenarios: ['mid-activity', 'between-activities'] },
  b4: { turns: [10, 50, 200], probeMaxSteps: 20_000 },
  b5: { parked: [100, 1000], signalRuns: 10 },
  turn: { latenciesMs: [0, 2000, 8000], turns: [3, 8], pairsAtZero: 7, longAtZero: 13 },
  ready: { runs: 3 },
  scale: { topics: 20_000, workflowTopics: 2_000, concurrency: 64, latencyMs: 1000 },
};

/** The smoke run for CI: every section and every system, smaller. */
export const QUICK: BenchParams = {
  quick: true,
  b1: { n: [1, 5, 20], runs: 3, warmup: 1 },
  b2: { m: [1, 4, 16], steps: 10, latencyMs: 200, batches: 1 },
  b3: { scenarios: ['between-activities'] },
  b4: { turns: [10], probeMaxSteps: 20_000 },
  b5: { parked: [100], signalRuns: 3 },
  turn: { latenciesMs: [0], turns: [3, 8], pairsAtZero: 1, longAtZero: 8 },
  ready: { runs: 1 },
  scale: { topics: 320, workflowTopics: 160, concurrency: 64, latencyMs: 1000 },
};
