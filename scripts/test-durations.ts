// Refreshes test/support/env/test-durations.json, the order the suite starts its files in
// (test/support/env/slow-first-sequencer.mts), from a run's JSON report:
//
//   npx vitest run --reporter=default --reporter=json --outputFile=/tmp/suite.json
//   npx tsx scripts/test-durations.ts /tmp/suite.json
//
// Only files of 5 s or more are kept: the order of short ones does not change when the suite ends.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SHORTEST_MS = 5_000;
const root = join(__dirname, '..');
const report = process.argv[2];
if (!report) {
  console.error('usage: npx tsx scripts/test-durations.ts REPORT.json (vitest --reporter=json --outputFile=REPORT.json)');
  process.exit(2);
}
const { testResults } = JSON.parse(readFileSync(report, 'utf8')) as { testResults: { name: string; startTime: number; endTime: number }[] };
const rows = testResults
  .map((t) => [relative(root, t.name), Math.round(t.endTime - t.startTime)] as const)
  .filter(([, ms]) => ms >= SHORTEST_MS)
  .sort((a, b) => b[1] - a[1]);
writeFileSync(join(root, 'test/support/env/test-durations.json'), `${JSON.stringify(Object.fromEntries(rows), null, 0).replace(/,"/g, ',\n"')}\n`);
console.log(`${rows.length} files of ${SHORTEST_MS / 1000} s or more, the slowest ${rows[0]?.[0]} (${((rows[0]?.[1] ?? 0) / 1000).toFixed(1)} s)`);
