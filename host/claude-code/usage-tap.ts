import type { CassetteUsage } from '../../core/parsing/cassette';

/** One answer of the model as the relay saw it pass: its message id, model and final usage. */
export interface RelayedAnswer {
  messageId?: string;
  model?: string;
  usage: CassetteUsage;
}

type Event = { type?: string; message?: { id?: string; model?: string; usage?: CassetteUsage }; usage?: Partial<CassetteUsage>; id?: string; model?: string };

/**
 * Reads an answer's usage as it streams past (docs/claude-code.md#gates-and-budgets): `message_start` gives
 * the message, its model and input tokens, each `message_delta` the output so far; a JSON answer
 * gives them at once. The session's own accounting is not trusted: this is what the API said.
 */
export class UsageTap {
  private buffered = '';
  private answer: RelayedAnswer | undefined;

  constructor(private readonly streamed: boolean) {}

  /** Takes a chunk of the answer's body. */
  take(chunk: Buffer | string): void {
    this.buffered += chunk.toString();
    if (!this.streamed) return;
    const lines = this.buffered.split('\n');
    this.buffered = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('data:')) this.event(line.slice(5).trim());
  }

  /** The answer's usage once its body ended; undefined when it had none (an error). */
  end(): RelayedAnswer | undefined {
    if (!this.streamed) this.whole(this.buffered);
    return this.answer;
  }

  private event(text: string): void {
    let event: Event;
    try {
      event = JSON.parse(text) as Event;
    } catch {
      return;
    }
    if (event.type === 'message_start' && event.message?.usage) {
      this.answer = { messageId: event.message.id, model: event.message.model, usage: { ...event.message.usage } };
    } else if (event.type === 'message_delta' && event.usage && this.answer) {
      for (const [name, value] of Object.entries(event.usage)) if (typeof value === 'number') this.answer.usage[name] = value;
    }
  }

  private whole(text: string): void {
    try {
      const message = JSON.parse(text) as Event & { usage?: CassetteUsage };
      if (message.usage && typeof message.usage.input_tokens === 'number') this.answer = { messageId: message.id, model: message.model, usage: message.usage as CassetteUsage };
    } catch {
      // not an answer: nothing to count
    }
  }
}
