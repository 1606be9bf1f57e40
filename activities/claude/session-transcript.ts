import { Context } from '@temporalio/activity';
import { modelCallKey } from '../../core/run/ids';
import { costOf } from '../../core/run/pricing';
import type { TokenUsage } from '../../core/run/run-types';
import { addUsage, ZERO_USAGE } from '../../core/run/usage';
import type { RelayedAnswer } from '../../host/claude-code/usage-tap';
import type { DexStore } from '../../store/dex-store';
import { tokenUsage } from '../model/model-reply';

type Block = { type: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: unknown; is_error?: boolean; text?: string };

/** A message the session emitted, as far as the transcript needs it. */
interface SessionMessage {
  type: string;
  message?: { id?: string; role?: string; content?: unknown; model?: string };
}

/**
 * A Claude Code session's messages kept in dex's transcript as they come (docs/claude-code.md#durable-at-the-message):
 * an answer's blocks (the session splits one answer into several messages) as one assistant
 * message with its accounting from the relay, the tool results as the user message after it and
 * as tool results `dex log` shows. Messages continue the transcript's numbering, so an attempt
 * that resumes the session adds to what earlier attempts kept.
 */
export class SessionTranscript {
  private pending: { id: string; blocks: Block[]; model?: string } | undefined;
  /** Each answer the relay counted, by message id: its usage and cost, priced once. */
  private readonly answers = new Map<string, { model?: string; usage: TokenUsage; costUsd: number }>();
  private readonly toolNames = new Map<string, string>();
  private readonly started = Date.now();
  /** What this attempt's answers cost, as the relay counted them. */
  usage: TokenUsage = ZERO_USAGE;
  costUsd = 0;
  /** Short lines for the session's steps (`Bash npm test`, `Edit src/math.js`), in order. */
  readonly steps: string[] = [];
  /** The transcript's sequence number of the last answer stored. */
  lastAnswerSeq = -1;
  /** Answers in the transcript so far, earlier stretches' too: the turn number `dex log` gives the last one. */
  turns: number;
  /** The text of the session's last answer. */
  lastText = '';

  constructor(
    private readonly store: DexStore,
    private readonly call: { transcriptId: string; taskId: string; phase: string; model: string },
    stored: { role: string }[],
    /** Hears each step as the session takes it. */
    private readonly onStep?: (step: string) => void,
  ) {
    this.nextSeq = stored.length;
    this.turns = this.turnsBefore = stored.filter((m) => m.role === 'assistant').length;
  }

  /** The next free sequence number of the transcript. */
  nextSeq: number;
  /** Answers earlier stretches (or attempts) left in the transcript. */
  private readonly turnsBefore: number;

  /** Answers this attempt stored: the model turns it counts for. */
  get answersStored(): number {
    return this.turns - this.turnsBefore;
  }

  /** An answer the relay saw pass: counted now, kept with its message when that is stored. */
  answered(answer: RelayedAnswer): void {
    const usage = tokenUsage(answer.usage);
    const costUsd = costOf(this.call.model, usage);
    this.usage = addUsage(this.usage, usage);
    this.costUsd += costUsd;
    if (answer.messageId) this.answers.set(answer.messageId, { model: answer.model, usage, costUsd });
  }

  /** Takes one message of the session. */
  async take(m: SessionMessage): Promise<void> {
    const blocks = Array.isArray(m.message?.content) ? (m.message!.content as Block[]) : [];
    if (m.type === 'assistant' && m.message?.id) {
      if (this.pending && this.pending.id !== m.message.id) await this.flush();
      this.pending ??= { id: m.message.id, blocks: [], model: m.message.model };
      this.pending.blocks.push(...blocks);
      for (const b of blocks.filter((b) => b.type === 'tool_use')) {
        this.toolNames.set(String(b.id), String(b.name));
        const step = stepOf(String(b.name), b.input);
        this.steps.push(step);
        this.onStep?.(step);
      }
      const text = blocks.filter((b) => b.type === 'text').map((b) => b.text ?? '').join('\n');
      if (text.trim()) this.lastText = text;
      return;
    }
    if (m.type !== 'user' || blocks.length === 0) return;
    await this.flush();
    for (const b of blocks) {
      if (b.type !== 'tool_result' || !b.tool_use_id) continue;
      await this.store.putToolResult(this.call.transcriptId, b.tool_use_id, { name: this.toolNames.get(b.tool_use_id) ?? 'tool', content: resultText(b.content), isError: b.is_error === true });
    }
    await this.store.appendMessage(this.call.transcriptId, this.nextSeq++, 'user', blocks);
  }

  /** Stores the answer being gathered, with its accounting when the relay has counted it. */
  async flush(): Promise<void> {
    const answer = this.pending;
    if (!answer) return;
    this.pending = undefined;
    const seq = this.nextSeq++;
    this.lastAnswerSeq = seq;
    this.turns++;
    const counted = this.answers.get(answer.id);
    if (!counted) return this.store.appendMessage(this.call.transcriptId, seq, 'assistant', answer.blocks);
    const { info } = Context.current();
    await this.store.recordModelReply(this.call.transcriptId, seq, answer.blocks, {
      callKey: modelCallKey(this.call.transcriptId, seq),
      workflowId: info.workflowExecution?.workflowId ?? `activity:${info.activityId}`,
      taskId: this.call.taskId,
      phase: this.call.phase,
      model: counted.model ?? answer.model ?? this.call.model,
      ...counted.usage,
      costUsd: counted.costUsd,
      durationMs: Date.now() - this.started,
      stopReason: answer.blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
    });
  }
}

/** A tool call as one short line: its name and what it works on (a command, a file, a pattern). */
function stepOf(name: string, input: unknown): string {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const main = [fields.command, fields.file_path, fields.notebook_path, fields.pattern, fields.path].find((v) => typeof v === 'string') as string | undefined;
  const text = (main ?? '').replace(/\s+/g, ' ').trim();
  return text ? `${name} ${text.length > 80 ? `${text.slice(0, 79)}…` : text}` : name;
}

/** A tool result's content as text: a string, or its text blocks. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: { type?: string; text?: string }) => (c.type === 'text' ? (c.text ?? '') : `[${c.type}]`)).join('\n');
  return '';
}
