/**
 * `dex log`'s steps: a transcript in this host's store read as what happened, turn by turn: the
 * model's text, each tool it called with its arguments and a preview of the result, each verify,
 * and what the model was told next. Reading and rendering only; the command is commands/log.ts.
 */
import { modelCallKey, verifyReportId, verifyResultKey } from '../../core/run/ids';
import type { DexStore } from '../../store/dex-store';
import type { VerifyResult } from '../../core/task/task-types';
import type { GateDecision } from '../run-history';
import { tokensIn } from '../../core/run/usage';
import { causeOnOneLine, failureCause } from '../../core/task/verify-failures';
import { formatUsd } from '../../core/text/spending';

/** How much of an argument list, a result or a text one step line shows. */
const PREVIEW_CHARS = 120;

/** One step of a transcript. */
type LogStep =
  | { kind: 'prompt'; seq: number; chars: number; preview: string }
  | { kind: 'turn'; seq: number; turn: number; text?: string; model?: string; tokensIn?: number; tokensOut?: number; costUsd?: number }
  | { kind: 'tool'; seq: number; turn: number; toolUseId: string; name: string; input: string; result?: string; isError?: boolean }
  /** `cause`: what made it fail, on one line; `tail`: the last line of its output. */
  | { kind: 'verify'; seq: number; turn: number; passed: boolean; commands: string[]; cause?: string; tail?: string }
  | { kind: 'told'; seq: number; text: string };

/** A transcript and its steps. */
export interface TranscriptLog {
  id: string;
  steps: LogStep[];
}

type Block = { type?: string; text?: unknown; id?: unknown; name?: unknown; input?: unknown };

/** `text` on one line, cut to `chars`. */
function preview(text: string, chars = PREVIEW_CHARS): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > chars ? `${line.slice(0, chars - 1)}…` : line;
}


const blocksOf = (content: unknown): Block[] => (Array.isArray(content) ? (content as Block[]) : []);
const textOf = (blocks: Block[]): string[] => blocks.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string);

/** The steps of transcript `transcriptId`, in order, from the store. */
export async function transcriptSteps(store: DexStore, transcriptId: string): Promise<LogStep[]> {
  const steps: LogStep[] = [];
  let turn = 0;
  for (const message of await store.listMessages(transcriptId)) {
    const blocks = blocksOf(message.content);
    if (message.role === 'user') {
      const texts = textOf(blocks);
      if (message.seq === 0) {
        const prompt = texts.join('\n');
        steps.push({ kind: 'prompt', seq: 0, chars: prompt.length, preview: preview(prompt) });
      } else if (texts.length) {
        // A follow-up is tool results (shown with their tools), a stored report, then the note that says what to do next.
        steps.push({ kind: 'told', seq: message.seq, text: preview(texts.at(-1)!) });
      }
      continue;
    }
    turn++;
    const call = await store.getModelCall(modelCallKey(transcriptId, message.seq));
    const text = textOf(blocks).join('\n');
    steps.push({
      kind: 'turn',
      seq: message.seq,
      turn,
      ...(text.trim() ? { text: preview(text) } : {}),
      ...(call ? { model: call.model, tokensIn: tokensIn(call), tokensOut: call.output, costUsd: call.costUsd } : {}),
    });
    const uses = blocks.filter((b) => b.type === 'tool_use');
    for (const use of uses) {
      const toolUseId = String(use.id);
      const result = await store.getToolResult(transcriptId, toolUseId);
      steps.push({
        kind: 'tool',
        seq: message.seq,
        turn,
        toolUseId,
        name: String(use.name),
        input: preview(JSON.stringify(use.input ?? {})),
        ...(result ? { result: preview(result.content || '(empty)'), isError: result.isError } : {}),
      });
    }
    if (uses.length === 0) {
      // A completion is verified (in a phase that changes files): its report sits beside the transcript.
      const stored = await store.getArtifact(verifyResultKey(verifyReportId(transcriptId, turn)));
      if (stored) {
        const verify = JSON.parse(stored.content) as VerifyResult;
        const tail = verify.tail?.trim().split('\n').at(-1);
        // Reports of older releases have no cause: it is looked for in their tail.
        const cause = verify.passed ? undefined : (verify.cause ?? failureCause(verify.tail ?? ''));
        const commands = verify.commands.map((c) => c.command);
        steps.push({ kind: 'verify', seq: message.seq, turn, passed: verify.passed, commands, ...(cause ? { cause: preview(causeOnOneLine(cause)) } : {}), ...(tail ? { tail: preview(tail) } : {}) });
      }
    }
  }
  return steps;
}

/** One step as a line of text (indented under its transcript's header). */
export function renderStep(step: LogStep): string {
  switch (step.kind) {
    case 'prompt':
      return `  prompt (${step.chars} chars): ${step.preview}`;
    case 'turn': {
      const spent = step.model ? ` · ${step.model} · ${step.tokensIn} in / ${step.tokensOut} out · ${formatUsd(step.costUsd ?? 0)}` : '';
      return `  turn ${step.turn}${spent}${step.text ? `\n    ${step.text}` : ''}`;
    }
    case 'tool':
      return `    ${step.name} ${step.input} → ${step.result === undefined ? '(running)' : `${step.isError ? 'error: ' : ''}${step.result}`}`;
    case 'verify':
      return `    verify ${step.passed ? 'passed' : 'failed'}: ${step.commands.join(' && ')}${step.passed ? '' : ` · ${step.cause ?? step.tail ?? 'no output'}`}`;
    case 'told':
      return `    → told: ${step.text}`;
  }
}

/** A decision at a gate as a line: `gate "before:implement" rejected by ana: out of scope (its phase runs again)`. */
export function renderDecision(d: GateDecision): string {
  const gate = d.gate ? `gate "${d.gate}"${d.taskId ? ` of task ${d.taskId}` : ''} ` : d.taskId ? `task ${d.taskId}'s gate ` : '';
  const by = d.by ? ` by ${d.by}` : '';
  const signal = d.via === 'signal' ? ' (signal)' : '';
  if (d.action === 'reject') return `  ${gate}rejected${by}${signal}: ${d.reason}${d.retry ? ' (its phase runs again)' : ''}`;
  const budget = d.budgetUsd !== undefined ? ` with a budget of ${formatUsd(d.budgetUsd)}` : '';
  // `dex choose` (docs/attempts.md#the-choose-gate): which attempt the person landed.
  const choice = d.choice ? `, choosing attempt ${d.choice}` : '';
  return `  ${gate}approved${by}${signal}${budget}${choice}${d.note ? `: ${d.note}` : ''}`;
}

/** A step's identity, to print each once while following: a tool step counts once its result is there. */
export function stepKey(transcriptId: string, step: LogStep): string {
  return `${transcriptId}#${step.seq}:${step.kind}${step.kind === 'tool' ? `:${step.toolUseId}` : ''}`;
}

/** True when a step will not change any more (a tool step waits for its result). */
export const stepSettled = (step: LogStep): boolean => step.kind !== 'tool' || step.result !== undefined;
