/**
 * The set-up corpus's results as markdown (bench/setup-corpus.ts): one row per project and the
 * success rate, the section docs/performance.md shows under "Set-up corpus".
 */
import type { CorpusResult } from './setup-corpus-project';

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

/** The share of projects (excluded ones aside) that set up and passed, and how many needed their verify written. */
export function successRate(results: CorpusResult[]): { counted: number; passed: number; passedDetected: number; percent: number } {
  const counted = results.filter((r) => !r.excluded);
  const passed = counted.filter((r) => r.passed);
  return {
    counted: counted.length,
    passed: passed.length,
    passedDetected: passed.filter((r) => r.verifySource === 'detected').length,
    percent: counted.length ? Math.round((1000 * passed.length) / counted.length) / 10 : 0,
  };
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

/** The markdown table of `results` (sorted by kind, then name) and its success rate. */
export function corpusMarkdown(results: CorpusResult[]): string {
  const rows = [...results].sort((a, b) => (a.kind ?? '').localeCompare(b.kind ?? '') || a.name.localeCompare(b.name));
  const rate = successRate(results);
  const lines = [
    `**${rate.passed} of ${rate.counted} projects (${rate.percent}%) set up and passed their own suite at baseline** with no \`setup:\` written` +
      ` (${rate.passedDetected} of them with the verify dex detects; the others with the verify the manifest gives).`,
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
        r.excluded ? 'excluded' : r.passed ? 'passed' : r.setupError ? 'setup failed' : 'failed',
        whyNot(r) + (r.notes ? ` ${r.notes}` : ''),
      ].map((c) => cell(c)).join(' | '),
    ).map((row) => `| ${row} |`),
  ];
  return `${lines.join('\n')}\n`;
}
