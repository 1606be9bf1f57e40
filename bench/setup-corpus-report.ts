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
  if (r.setupError) return r.setupError;
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
        r.plan.map((p) => code(p.command)).join('<br>') || 'nothing',
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
