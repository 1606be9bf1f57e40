/**
 * `npx tsx bench/write-report.ts`: docs/performance.md and docs/performance-b1.png from
 * bench/results/latest.json, so the page always shows the numbers of one run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { B3Result } from './scenarios/b3-crash';
import type { BenchDoc } from './report/bench-doc';
import type { B1System } from './params';
import { lineChartSvg } from './report/chart-svg';
import { performanceMarkdown } from './report/report-markdown';

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
