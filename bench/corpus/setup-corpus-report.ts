/**
 * The set-up corpus's results as markdown (bench/setup-corpus.ts): one row per project and the
 * success rate, the section docs/performance.md shows under "Set-up corpus".
 */
import type { CorpusResult } from './setup-corpus-project';
import { timesMarkdown } from './setup-corpus-times';

/** A cell's text with the characters that would break a markdown table row escaped. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string) => (text ? `\`${text.replace(/`/g, "'")}\`` : '');

/** Why a project did not pass, in one line; empty when it passed. */
export function whyNot(r: CorpusResult): string {
  if (r.excluded) return `excluded: ${r.excluded}`;
  // The install command is in the plan's column already: the line keeps how it ended and why.
  if (r.setupError) return r.setupError.replace(/^(warm: )?setup failed: (\S+) `.*?` (exited \d+|timed out|was killed by \S+)( \(network only to [^)]*\))?/, '$1setup: $2 $3');
  if (r.verifyFailure) {
    const restored = r.coldVerifyPassed ? ' (passes in the cold worktree: the restore from the cache broke it)' : '';
    return `${r.verifyFailure.command ? `${code(r.verifyFailure.command)}: ` : ''}${r.verifyFailure.cause}${restored}`;
  }
  return '';
}

/**
 * How many projects passed, counted two ways. `zeroConfig` over `all`: each excluded project a
 * failure and a verify the manifest had to give a miss of detection (issue 50's rate).
 * `passed` over `counted`: the exclusions left out, a manifest's verify allowed.
 */
export function successRate(results: CorpusResult[]) {
  const counted = results.filter((r) => !r.excluded);
  const passed = counted.filter((r) => r.passed);
  const zeroConfig = passed.filter((r) => r.verifySource === 'detected');
  const percent = (n: number, of: number) => (of ? Math.round((1000 * n) / of) / 10 : 0);
  return {
    all: results.length,
    excluded: results.length - counted.length,
    zeroConfig: zeroConfig.length,
    zeroConfigPercent: percent(zeroConfig.length, results.length),
    counted: counted.length,
    passed: passed.length,
    percent: percent(passed.length, counted.length),
  };
}

/** "each of the 3 …s" or "the 1 …", for the headline's counts. */
const eachOf = (n: number, what: string) => (n === 1 ? `the 1 ${what}` : `each of the ${n} ${what}s`);

/** The headline: the zero-config rate with every exclusion a failure, beside the rate without them. */
function rateLine(results: CorpusResult[]): string {
  const r = successRate(results);
  const written = r.passed - r.zeroConfig;
  const counted = [
    ...(r.excluded ? [`${eachOf(r.excluded, 'excluded project')} counted as a failure`] : []),
    ...(written ? [`${eachOf(written, 'project')} that passed only with a verify the manifest gives counted as a miss of detection`] : []),
  ];
  return (
    `**${r.zeroConfig} of ${r.all} projects (${r.zeroConfigPercent}%) set up and passed their own suite at baseline with nothing written for them**` +
    ` (no \`setup:\`, no \`verify:\`)${counted.length ? `, ${counted.join(' and ')}` : ''}.` +
    ` Without the exclusions, ${r.passed} of ${r.counted} (${r.percent}%) set up and passed${written ? `, counting the ${written} with a written verify` : ''}.`
  );
}

/**
 * A plan's install, short: its last step (`uv sync --frozen` of a line that first installs uv),
 * without its environment assignments and with programs by name. The results keep the whole line.
 */
export function shortPlan(plan: { ecosystem: string; command: string }): string {
  const last = plan.command.split('&&').at(-1)!.trim().replace(/^([A-Z_]+=\S+ )+/, '').replace(/^\S*\//, '');
  return `${plan.ecosystem}: ${last}`;
}

const secondsCell = (s: number | undefined) => (s === undefined ? '–' : s.toFixed(1));

/** The success rate of `results`, their set-up times by ecosystem, and one row per project (sorted by kind, then name). */
export function corpusMarkdown(results: CorpusResult[]): string {
  const rows = [...results].sort((a, b) => (a.kind ?? '').localeCompare(b.kind ?? '') || a.name.localeCompare(b.name));
  const lines = [
    rateLine(results),
    '',
    ...timesMarkdown(results),
    '',
    '| project | picked for | detected plan | verify | cold s | warm s | baseline | why not |',
    '|---|---|---|---|--:|--:|---|---|',
    ...rows.map((r) =>
      [
        r.repo ? `[${r.name}](https://github.com/${r.repo})` : r.name,
        r.kind ?? '',
        r.plan.map((p) => code(shortPlan(p))).join('<br>') || 'nothing',
        r.verify.length ? `${r.verify.map(code).join('<br>')}${r.verifySource === 'manifest' ? ' (manifest)' : ''}` : 'none detected',
        secondsCell(r.coldSeconds),
        secondsCell(r.warmSeconds),
        r.excluded ? 'excluded' : r.passed ? (r.verifySource === 'manifest' ? 'passed, verify written' : 'passed') : r.setupError ? 'setup failed' : 'failed',
        whyNot(r) + (r.notes ? ` ${r.notes}` : ''),
      ].map((c) => cell(c)).join(' | '),
    ).map((row) => `| ${row} |`),
  ];
  return `${lines.join('\n')}\n`;
}
