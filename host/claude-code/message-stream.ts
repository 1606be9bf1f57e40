import type { ServerResponse } from 'node:http';
import type { CassetteBlock } from '../../core/parsing/cassette';

/** A Messages API response to stream: its content blocks, usage and the rest of its fields. */
type StreamedMessage = { content: CassetteBlock[]; usage: Record<string, unknown> } & Record<string, unknown>;

/**
 * Writes `message` as the Messages API streams one (server-sent events, each block in pieces), so
 * a client accumulates exactly `message` back: dex's model relay answering a Claude Code session
 * from a replay cassette (docs/claude-code.md), and the fake Anthropic server of the tests.
 */
export function writeMessageStream(res: ServerResponse, message: StreamedMessage, requestId: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': requestId });
  const send = (event: { type: string } & Record<string, unknown>): void => {
    res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  };
  const { content, usage, stop_reason, stop_sequence, ...rest } = message;
  // As the real API does: input and cache counts arrive in message_start, output_tokens at the end.
  const started = { ...rest, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 0 } };
  send({ type: 'message_start', message: started });
  send({ type: 'ping' });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      send({ type: 'content_block_start', index, content_block: { ...block, text: '' } });
      for (const text of chunks(String(block.text))) send({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    } else if (block.type === 'tool_use') {
      send({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      for (const partial_json of chunks(JSON.stringify(block.input ?? {}))) send({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
    } else if (block.type === 'thinking') {
      send({ type: 'content_block_start', index, content_block: { ...block, thinking: '', signature: '' } });
      for (const thinking of chunks(String(block.thinking))) send({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } });
      send({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else {
      send({ type: 'content_block_start', index, content_block: block });
    }
    send({ type: 'content_block_stop', index });
  });
  send({ type: 'message_delta', delta: { stop_reason: stop_reason ?? null, stop_sequence: stop_sequence ?? null }, usage: { output_tokens: usage.output_tokens } });
  send({ type: 'message_stop' });
  res.end();
}

/** `text` in up to three pieces, split on code points, so deltas must be joined to be right. */
function chunks(text: string): string[] {
  const points = Array.from(text);
  const size = Math.max(1, Math.ceil(points.length / 3));
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += size) pieces.push(points.slice(i, i + size).join(''));
  return pieces.length ? pieces : [''];
}
