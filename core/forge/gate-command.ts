/**
 * `/dex approve|reject|retry|choose` in a forge comment (docs/forge-triggers.md#gates-from-the-forge): what it
 * asks, and which run it is for. Pure: the webhook reads the delivery, checks who wrote it, and sends
 * the decision.
 */
import type { DecideInput } from '../run/definitions';
import { issueRunId } from './issue-run';

/** A gate command as a person wrote it. */
interface GateCommand {
  action: 'approve' | 'reject' | 'retry' | 'choose';
  /** The rest of the line: the reason of a reject or retry, a note of an approval, the attempt chosen (docs/attempts.md#the-choose-gate). */
  text?: string;
}

const COMMAND = /^\/dex\s+(approve|reject|retry|choose)\b[ \t]*(.*)$/im;

/** The gate command a comment's text holds (on a line of its own), if any. */
export function gateCommandIn(body: string): GateCommand | undefined {
  const m = COMMAND.exec(body);
  if (!m) return undefined;
  const text = m[2].trim();
  return { action: m[1].toLowerCase() as GateCommand['action'], ...(text ? { text } : {}) };
}

/** The decision `command` by `by` stands for; a reject needs a reason, a choice an attempt's letter (undefined: it has none). */
export function decisionOf(command: GateCommand, by: string, taskId?: string): DecideInput | undefined {
  const task = taskId ? { taskId } : {};
  if (command.action === 'choose') {
    const letter = /^[a-h]$/i.exec(command.text ?? '')?.[0].toUpperCase();
    return letter ? { action: 'approve', by, choice: letter, ...task } : undefined;
  }
  if (command.action === 'approve') return { action: 'approve', by, ...(command.text ? { note: command.text } : {}), ...task };
  if (command.action === 'retry') return { action: 'reject', by, retry: true, reason: command.text ?? `${by} asked for a retry on the forge`, ...task };
  return command.text ? { action: 'reject', by, reason: command.text, ...task } : undefined;
}

/** The landing a pull request's description names (`proposed by dex (landing <run>/<task>)`): its roadmap run and task. */
export function landingOf(description: string): { workflowId: string; taskId: string } | undefined {
  const m = /proposed by dex \(landing ([^\s)]+)\)/.exec(description);
  const key = m?.[1];
  const cut = key?.lastIndexOf('/') ?? -1;
  return key && cut > 0 ? { workflowId: key.slice(0, cut), taskId: key.slice(cut + 1) } : undefined;
}

/**
 * The run a comment on issue or pull request `number` is for: the roadmap run and task a pull
 * request of dex's names in its description, else the run of that issue (issue-run.ts).
 */
export function runOfComment(owner: string, repo: string, number: number, isPull: boolean, description: string): { workflowId: string; taskId?: string } {
  const landing = isPull ? landingOf(description) : undefined;
  return landing ?? { workflowId: issueRunId(owner, repo, number) };
}
