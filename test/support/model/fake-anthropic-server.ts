/**
 * A fake Anthropic Messages API on 127.0.0.1 for tests: it answers from a replay cassette
 * (JSON or, for `stream: true`, SSE events the real SDK accumulates back into the recorded
 * response), records every request, and serves injected faults.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isErrorLine, matchingLineNumbers, parseCassette, type CassetteEntry, type CassetteLine } from '../../../core/parsing/cassette';
import { writeMessageStream } from '../../../host/claude-code/message-stream';

/** A fault served instead of an answer; `match` limits it to requests with that `x-dex-task` and/or `x-dex-call`. */
export type Fault = (
  | { status: number; body?: object; headers?: Record<string, string> }
  | { kind: 'timeout' }
  | { kind: 'malformed' }
  // The stream starts (headers, message_start, a ping), then nothing more arrives on the open connection.
  | { kind: 'stall' }
) & { match?: { task?: string; call?: string } };

/** The parts of a Messages API request body the tests look at. */
export interface MessagesRequestBody {
  model?: string;
  max_tokens?: number;
  stream?: boolean;
  system?: { type: string; text: string; cache_control?: unknown }[];
  tools?: { name: string; cache_control?: unknown }[];
  messages?: { role: string; content: unknown }[];
  [field: string]: unknown;
}

/** One request the fake received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: MessagesRequestBody | null;
  time: number;
}

/** A request the fake keeps waiting, so a test acts while a model call is in flight. */
export interface HeldRequest {
  reached: Promise<void>;
  release(): void;
}

/** A running fake server. */
export interface FakeAnthropic {
  /** Base URL for the SDK's `baseURL`. */
  url: string;
  requests: RecordedRequest[];
  /** The requests made for task `task` (its `x-dex-task` header), in order. */
  requestsFor(task: string): RecordedRequest[];
  /** Queues a fault for the next matching request (first in, first out). */
  injectFault(fault: Fault): void;
  /** Holds the next request matching `match` before it is answered: `reached` once it came, answered after `release()`. */
  holdRequest(match: NonNullable<Fault['match']>): HeldRequest;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/**
 * Starts the fake on a random port; `cassette` is a cassette file path or parsed lines; `latencyMs` delays every answer (the bench's model time);
 * `answer` makes the answer to a request no cassette line matches (the scale bench's thousands of topics, bench/scenarios/b8-layer-scale.ts).
 */
export async function startFakeAnthropic(
  opts: { cassette?: string | CassetteLine[]; latencyMs?: number; answer?: (task: string, phase: string) => CassetteLine['response'] } = {},
): Promise<FakeAnthropic> {
  const lines: CassetteEntry[] =
    typeof opts.cassette === 'string' ? parseCassette(readFileSync(opts.cassette, 'utf8'), opts.cassette) : (opts.cassette ?? []);
  const used = new Set<number>();
  /** The cassette line each `x-dex-call` key was answered with. */
  const answered = new Map<string, number>();
  const faults: Fault[] = [];
  const requests: RecordedRequest[] = [];
  const holds: { match: NonNullable<Fault['match']>; reached: () => void; released: Promise<void> }[] = [];
  const matches = (match: Fault['match'], task: string | undefined, call: string | undefined): boolean =>
    (match?.task === undefined || match.task === task) && (match?.call === undefined || match.call === call);

  const server = createServer((req, res) => {
    void readBody(req).then(async (raw) => {
      if (opts.latencyMs) await new Promise((resolve) => setTimeout(resolve, opts.latencyMs));
      let body: MessagesRequestBody | null = null;
      try {
        body = raw ? (JSON.parse(raw) as MessagesRequestBody) : null;
      } catch {
        // recorded as null; answered below as a bad request
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, time: Date.now() });
      const task = header(req, 'x-dex-task');
      const phase = header(req, 'x-dex-phase');
      const id = `fake_${requests.length}`;

      if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages') {
        return sendError(res, 404, `fake Anthropic: no route ${req.method} ${req.url}`, id);
      }
      if (!body) return sendError(res, 400, 'fake Anthropic: the request body is not JSON', id);

      const call = header(req, 'x-dex-call');
      const holdAt = holds.findIndex((h) => matches(h.match, task, call));
      if (holdAt !== -1) {
        const [hold] = holds.splice(holdAt, 1);
        hold.reached();
        await hold.released;
      }
      const faultAt = faults.findIndex((f) => matches(f.match, task, call));
      if (faultAt !== -1) {
        const [fault] = faults.splice(faultAt, 1);
        if ('status' in fault) return sendError(res, fault.status, undefined, id, fault.body, fault.headers);
        if (fault.kind === 'timeout') return; // never answered; the client gives up and closes
        if (fault.kind === 'stall') return sendStall(res, body.model, id);
        return sendMalformed(res, body.stream === true, id);
      }

      // A call asked again (its worker died, or its store went away, after the answer left here) gets
      // the answer it got before, as a model asked the same again answers; other requests take the next line.
      const again = call === undefined ? undefined : answered.get(call);
      const free = matchingLineNumbers(lines, task ?? '', phase ?? '').filter((n) => !used.has(n));
      const made = again === undefined && free.length === 0 && opts.answer ? { line: 0, task: task ?? '', phase: phase ?? '', response: opts.answer(task ?? '', phase ?? '') } : undefined;
      const line = made ?? lines.find((l) => l.line === (again ?? free[0]));
      if (!line) {
        return sendError(res, 400, `fake Anthropic: no unused cassette line for task "${task}" phase "${phase}"`, id);
      }
      if (!made) used.add(line.line);
      // An error line answers once: the call asked again takes the next line, as a live retry would.
      if (isErrorLine(line)) {
        const { status, type, message, retryAfterSeconds } = line.error;
        return sendError(res, status, undefined, id, { type: 'error', error: { type, message } }, retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) });
      }
      if (call !== undefined && !made) answered.set(call, line.line);
      const message = {
        id: `msg_${id}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        stop_sequence: null,
        ...line.response,
      };
      if (body.stream) return writeMessageStream(res, message, `req_${id}`);
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${id}` });
      res.end(JSON.stringify(message));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestsFor: (task) => requests.filter((r) => r.headers['x-dex-task'] === task),
    injectFault: (fault) => void faults.push(fault),
    holdRequest: (match) => {
      let reached!: () => void;
      let release!: () => void;
      const reachedP = new Promise<void>((resolve) => (reached = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.push({ match, reached, released });
      return { reached: reachedP, release };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string | undefined,
  id: string,
  body?: object,
  headers: Record<string, string> = {},
): void {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  const payload = body ?? { type: 'error', error: { type, message: message ?? `fake ${type}` } };
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${id}`, ...headers });
  res.end(JSON.stringify(payload));
}

function sendMalformed(res: ServerResponse, stream: boolean, id: string): void {
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${id}` });
    res.end('{"id":"msg_broken","type":"message","content":[{"type":"te');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': `req_${id}` });
  const message = { id: `msg_${id}`, type: 'message', role: 'assistant', content: [], usage: { input_tokens: 1, output_tokens: 0 } };
  res.write(`event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message })}\n\n`);
  res.end('event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"te\n\n');
}

/** The start of a stream as the API sends it, then silence: the connection stays open until the client closes it. */
function sendStall(res: ServerResponse, model: string | undefined, id: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${id}` });
  const message = { id: `msg_${id}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };
  res.write(`event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message })}\n\n`);
  res.write('event: ping\ndata: {"type": "ping"}\n\n');
}
