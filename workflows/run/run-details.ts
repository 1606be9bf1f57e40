import { DETAILS_QUOTE_BYTES, clipText } from '../../core/limits/server-limits';
import type { RunStatus } from '../../core/run/run-types';
import { answersFor } from '../../core/text/answers';
import { attemptMarkdown, attemptsHeadline } from '../../core/text/attempt-table';
import { formatUsd, tokensText } from '../../core/text/spending';

/** How many of the latest steps the details show. */
const DETAILS_STEPS = 5;

/** Where the run is and what it spent, in one line. */
function whereLine(s: RunStatus): string {
  const c = s.current;
  const where = [c.taskId, c.phase, c.turn !== undefined ? `turn ${c.turn}` : undefined, c.activity].filter(Boolean).join(' · ');
  return `**${s.state}**${where ? ` · ${where}` : ''} · ${formatUsd(s.costUsd)} · ${tokensText(s.tokens)}`;
}

/**
 * The run's current details (markdown) as the Web UI and `temporal workflow describe` show them:
 * while it waits, the gate, since when, why, and the exact commands that answer it; always
 * where it is, what it spent and its latest steps.
 */
export function runDetails(s: RunStatus, workflowId: string): string {
  const parts: string[] = [];
  if (s.waitingFor) {
    const w = s.waitingFor;
    const answers = answersFor(workflowId, w.gate);
    parts.push(
      `### Waiting for you at gate \`${w.gate}\`${w.taskId ? ` (task ${w.taskId})` : ''}`,
      `since ${w.since}${w.reason ? `\n\n> ${clipText(w.reason, DETAILS_QUOTE_BYTES).replace(/\n/g, '\n> ')}` : ''}`,
      'Answer with dex:',
      answers.dex.map((c) => `    ${c}`).join('\n'),
      'or the stock Temporal CLI:',
      answers.temporal.map((c) => `    ${c}`).join('\n'),
      'or here: **More Actions → Send a Signal**, name `approve` (input `{"note":"ok"}`) or `reject` (input `{"reason":"why"}`).',
    );
  }
  if (s.retryOf) parts.push(`Retry of \`${s.retryOf.workflowId}\` from phase \`${s.retryOf.phase}\``);
  if (s.sandbox === 'off') parts.push("**UNSANDBOXED**: the agent's commands run unconfined on the worker's host.");
  parts.push(whereLine(s));
  // Which verify commands dex picked for a task whose config names none (docs/real-repositories.md#verify-without-configuration).
  if (s.verifyDetected) parts.push(`verify: ${s.verifyDetected}`);
  if (s.checks) parts.push(`checks: ${s.checks}`);
  // A best-of-N task (docs/attempts.md): absent for every other run, whose details stay as they were.
  if (s.attempts?.length) parts.push(attemptsHeadline(s.attempts, s.chosen), attemptMarkdown(s.attempts, s.chosen));
  // A fleet task: the worker that holds it, and where it came from (docs/fleet.md#seeing-the-fleet).
  if (s.worker) parts.push([`worker: ${s.worker}`, ...(s.moves ?? []).map((m) => `moved from ${m.from} at ${m.at}: ${m.why}`)].join('; '));
  const steps = (s.recent ?? []).slice(-DETAILS_STEPS);
  if (steps.length) parts.push(steps.map((step) => `- ${step.text}`).join('\n'));
  if (s.error) parts.push(`Error: ${clipText(s.error, DETAILS_QUOTE_BYTES)}`);
  return parts.join('\n\n');
}
