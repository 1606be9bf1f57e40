/**
 * `npx tsx bench/write-report.ts`: docs/performance.md and docs/performance-b1.png from
 * bench/results/latest.json, so the page always shows the numbers of one run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { B1Result } from './b1-overhead';
import type { B1System } from './params';
import type { B2Result } from './b2-concurrency';
import type { B3Result } from './b3-crash';
import type { B4Result } from './b4-history';
import type { B5Result } from './b5-gates';
import type { TurnResult } from './b6-turns';
import type { ReadyResult } from './b7-worktree-ready';
import type { ScaleResult } from './b8-layer-scale';
import { lineChartSvg } from './chart-svg';
import { performanceMarkdown } from './report-markdown';

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

const SYSTEM_COLORS: Record<B1System, string> = { plain: '#2ca02c', dex: '#d62728', dexLocal: '#ff7f0e', langgraph: '#1f77b4' };
const SYSTEM_NAMES: Record<B1System, string> = { plain: 'plain loop', dex: 'dex (activities)', dexLocal: 'dex (local act.)', langgraph: 'LangGraph JS' };

const root = join(__dirname, '..');
const doc = JSON.parse(readFileSync(join(__dirname, 'results', 'latest.json'), 'utf8')) as BenchDoc;
const before = JSON.parse(readFileSync(join(__dirname, 'results', 'b3-before-heartbeat-change.json'), 'utf8')) as B3Result;

const ns = Object.keys(doc.b1.dex.perStepMs).map(Number).sort((a, b) => a - b);
const svg = lineChartSvg({
  title: 'B1: orchestration time per step (median)',
  xLabel: 'steps per run (N)',
  yLabel: 'ms per step (log scale)',
  xTicks: ns,
  series: (Object.keys(SYSTEM_COLORS) as B1System[]).map((system) => ({
    name: SYSTEM_NAMES[system],
    color: SYSTEM_COLORS[system],
    points: ns.map((n) => ({ x: n, y: doc.b1[system].perStepMs[n].median })),
  })),
});
const svgPath = join(mkdtempSync(join(tmpdir(), 'dex-chart-')), 'b1.svg');
writeFileSync(svgPath, svg);
writeFileSync(join(root, 'docs', 'performance.md'), performanceMarkdown(doc, before, SYSTEM_NAMES));
try {
  execFileSync('rsvg-convert', ['-o', join(root, 'docs', 'performance-b1.png'), svgPath]);
  process.stderr.write('wrote docs/performance.md and docs/performance-b1.png\n');
} catch {
  // Without librsvg the page is still written; the chart keeps its last rendering.
  process.stderr.write(`wrote docs/performance.md; rsvg-convert is missing, so docs/performance-b1.png is stale (SVG at ${svgPath})\n`);
}
