/**
 * `dex status` as text: a live run's state, where it is and what it spent, and, while it waits,
 * the `dex` and stock `temporal` commands that answer it; an ended run's state, title, how long
 * it took and its kind's report; both with the run's Web UI page (docs/interfaces.md#the-dex-command).
 */
import type { RunStatus } from '../../core/run/run-types';
import { answersFor } from '../../core/text/answers';
import { formatElapsed, progressLine } from '../run/progress-lines';
import type { RunEnd } from '../run/follow-run';
import { renderRunEnd } from './render-run-end';
import { taskShapeLines } from './render-task';

/** What `dex status` knows of a run besides its status or result: its title, its time and its page. */
interface RunFacts {
  title?: string;
  startTime: Date;
  closeTime?: Date;
  webUi?: string;
}

/** The run's title and how long it ran (or has run so far). */
function aboutLine(facts: RunFacts, now: Date): string {
  const ms = (facts.closeTime ?? now).getTime() - facts.startTime.getTime();
  // A replayed run can end within a second: `took 0s` would read as not at all.
  const span = ms < 1_000 ? `${Math.max(0, ms)} ms` : formatElapsed(ms);
  const time = facts.closeTime ? `took ${span}` : `running for ${span}`;
  return facts.title ? `${facts.title} · ${time}` : time;
}

/** The commands that answer a run waiting at `gate`, under two headings. */
function answerLines(workflowId: string, gate: string): string[] {
  const answers = answersFor(workflowId, gate);
  return ['answer with dex:', ...answers.dex.map((c) => `  ${c}`), 'or the stock Temporal CLI:', ...answers.temporal.map((c) => `  ${c}`)];
}

/**
 * A task's pull request in its line (land.mode: pr), its link last so a terminal can open it:
 * `PR #12 build pending, test passed · flaky: lint · https://github.com/o/r/pull/12`.
 */
function pullRequestText(pr: NonNullable<RunStatus['tasks']>[number]['pullRequest']): string {
  if (!pr) return '';
  const checks = pr.checks.map((c) => `${c.name} ${c.state}`).join(', ');
  return [`PR #${pr.number}${checks ? ` ${checks}` : ''}`, ...(pr.flaky?.length ? [`flaky: ${pr.flaky.join(', ')}`] : []), ...(pr.url ? [pr.url] : [])].join(' · ');
}

/** A live run's `dex status`: state, title and time, where it is, its steps, tasks and, while it waits, its answers. */
export function renderLiveStatus(id: string, s: RunStatus, facts: RunFacts, extra: string[] = [], now = new Date()): string {
  const tasks = (s.tasks ?? []).map((t) => {
    const doing = [t.phase, pullRequestText(t.pullRequest)].filter(Boolean).join(' · ');
    return `  ${t.id.padEnd(8)} ${t.state.padEnd(16)} ${doing}${t.blockedBy ? ` blocked by ${t.blockedBy}` : ''}`.trimEnd();
  });
  return [
    `${id}: ${s.state}`,
    aboutLine(facts, now),
    progressLine(s),
    ...(s.kind === 'task' ? taskShapeLines(s) : []),
    // A layer or sheet that continued as new counts what its earlier runs ended (docs/layers.md#continue-as-new, docs/sheets.md#continue-as-new).
    ...(s.earlier ? [`earlier runs of the chain (${s.earlier.runs}): ${s.earlier.done} ${s.kind === 'sheet' ? 'statements' : 'targets'} done, ${s.earlier.skipped} skipped, ${s.earlier.failed} failed`] : []),
    ...tasks,
    ...(s.waitingFor ? answerLines(id, s.waitingFor.gate) : []),
    ...extra,
    ...(facts.webUi ? [`Web UI: ${facts.webUi}`] : []),
  ].join('\n');
}

/** An ended run's `dex status`: how it ended, its title and how long it took, its kind's report, then `extra` and its page. */
export function renderEndedStatus(workflowType: string, id: string, end: RunEnd, facts: RunFacts, extra: string[] = []): string {
  const [state, ...body] = renderRunEnd(workflowType, id, end).split('\n');
  return [state, aboutLine(facts, new Date()), ...body, ...extra, ...(facts.webUi ? [`Web UI: ${facts.webUi}`] : [])].join('\n');
}
