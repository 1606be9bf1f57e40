import type { BenchServer } from '../dex-env';
import type { BenchParams } from '../params';
import { round } from '../stats';
import { scaleRun, type ScaleRun } from './scale-run';

/** The scale section (docs/performance.md#layers-at-scale): a layer over many topics, as a night runs it. */
export interface ScaleResult {
  runs: ScaleRun[];
  /** CPU per topic with targets as activities over CPU per topic with a child workflow each, in this run. */
  cpuRatio: number;
  /** A 100,000-topic night from the activity run's figures: its hours at the measured rate, and the CPU-hours of orchestration it takes. */
  estimate100k: { hoursAtMeasuredRate: number; cpuHours: number };
  note: string;
}

/**
 * Runs the layer twice, targets as activities (dex today) and as child workflows (how every layer
 * ran before, now `target_workflows: true`), on one dev server with one `dex worker` process each;
 * then once more as activities with the worker SIGKILLed halfway (the crash at scale).
 */
export async function runScale(server: BenchServer, params: BenchParams, log: (line: string) => void): Promise<ScaleResult> {
  const { topics, workflowTopics, concurrency, latencyMs } = params.scale;
  const runs: ScaleRun[] = [];
  runs.push(await scaleRun(server, { targets: 'workflows', topics: workflowTopics, concurrency, latencyMs, n: 1 }, log));
  runs.push(await scaleRun(server, { targets: 'activity', topics, concurrency, latencyMs, n: 2 }, log));
  runs.push(await scaleRun(server, { targets: 'activity', topics, concurrency, latencyMs, crashAt: Math.floor(topics / 2), n: 3 }, log));
  const [children, activities] = runs;
  const cpuMs = activities.cpuMsPerTopic.total;
  const cpuHours = (100_000 * cpuMs) / 1000 / 3600;
  return {
    runs,
    cpuRatio: round(cpuMs / children.cpuMsPerTopic.total, 3),
    estimate100k: { hoursAtMeasuredRate: round(100_000 / activities.topicsPerSecond / 3600, 2), cpuHours: round(cpuHours, 2) },
    note: 'one message per topic, one model call per topic answered by the fake Anthropic server after latencyMs; one dex worker process; server and worker share this machine\'s cores',
  };
}
