import { request as httpRequest, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { CassetteResponse } from '../../core/parsing/cassette';
import { writeMessageStream } from './message-stream';
import { UsageTap, type RelayedAnswer } from './usage-tap';

/** Where the model's answers come from: the worker's own base URL and key (docs/claude-code.md#the-model-key). */
interface RelayUpstream {
  baseUrl: string;
  apiKey?: string | null;
}

/**
 * Where a relay's answers come from: sent on to `upstream`, or given by `answer` itself (a replay
 * cassette): what it returns is streamed back as the API would; what it throws ends the session
 * with an API error and is handed to `onFailure`, the failure the session's activity reports.
 */
export type RelaySource =
  | { upstream: RelayUpstream; answer?: never; onFailure?: never }
  | { upstream?: never; answer: AnswerSource; onFailure?: (err: unknown) => void };

/** Answers one Messages API request: its body, and the beta features it asked for in its `anthropic-beta` header. */
export type AnswerSource = (body: Record<string, unknown>, betas: string | undefined) => Promise<CassetteResponse>;

/** A running relay between a sandboxed Claude Code session and the model. */
interface ModelRelay {
  socketPath: string;
  /** Requests that went up to the model. */
  readonly forwarded: number;
  close(): Promise<void>;
}

/** Request headers the relay never passes on: the credentials the session holds are placeholders, and hop-by-hop ones. */
const DROPPED = new Set(['host', 'authorization', 'x-api-key', 'connection', 'proxy-authorization', 'keep-alive']);

/**
 * Starts the model relay on the Unix socket `socketPath` (docs/claude-code.md#the-model-key): the
 * session inside the sandbox calls it as its Anthropic base URL with a placeholder key, and the
 * relay sends each Messages API request on to `upstream` with the worker's real key, so the key
 * never enters the sandbox. `headers` are added to every request (the task and phase a cassette is
 * keyed by). `admit` may refuse a request (the session's budget ran out): the session is told
 * with an API error it does not retry. `onAnswer` hears each answer's usage as the API gave it.
 */
export async function startModelRelay(
  opts: {
    socketPath: string;
    headers: Record<string, string>;
    admit?: () => string | undefined;
    /** Each answer's usage, once its body ended. */
    onAnswer?: (answer: RelayedAnswer) => void;
  } & RelaySource,
): Promise<ModelRelay> {
  const base = opts.upstream && new URL(opts.upstream.baseUrl.endsWith('/') ? opts.upstream.baseUrl : `${opts.upstream.baseUrl}/`);
  let forwarded = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').replace(/^\/+/, '');
    if (req.method !== 'POST' || !path.startsWith('v1/messages')) return refuse(res, 404, 'not_found_error', `dex model relay: only the Messages API passes (${req.method} /${path})`);
    const refusal = opts.admit?.();
    if (refusal) return refuse(res, 400, 'invalid_request_error', refusal);
    forwarded++;
    if (opts.answer) return void answerHere(req, res, opts.answer, opts.onAnswer, opts.onFailure);
    const { upstream: to } = opts;
    const target = new URL(path, base);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !DROPPED.has(name)) headers[name] = value;
    if (to.apiKey) headers['x-api-key'] = to.apiKey;
    Object.assign(headers, opts.headers);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const upstream = send(target, { method: 'POST', headers }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      const tap = new UsageTap(String(reply.headers['content-type'] ?? '').includes('event-stream'));
      reply.on('data', (chunk: Buffer) => tap.take(chunk));
      reply.on('end', () => {
        const answer = reply.statusCode === 200 ? tap.end() : undefined;
        if (answer) opts.onAnswer?.(answer);
      });
      reply.pipe(res);
    });
    upstream.on('error', (err) => (res.headersSent ? res.destroy() : refuse(res, 502, 'api_error', `dex model relay: ${err.message}`)));
    req.pipe(upstream);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.socketPath, resolve);
  });
  return {
    socketPath: opts.socketPath,
    get forwarded() {
      return forwarded;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Answers given here so far, for ids of answers that come without one. */
let answered = 0;

/** Answers `req` with `answer`'s response, streamed when it asked for a stream; a failure is the API's 500. */
async function answerHere(
  req: IncomingMessage,
  res: ServerResponse,
  answer: AnswerSource,
  onAnswer: ((answer: RelayedAnswer) => void) | undefined,
  onFailure: ((err: unknown) => void) | undefined,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const beta = req.headers['anthropic-beta'];
    const reply = await answer(body, Array.isArray(beta) ? beta.join(',') : beta);
    const message = { id: `msg_dex_${++answered}`, type: 'message', role: 'assistant', model: body.model, stop_sequence: null, ...reply };
    onAnswer?.({ messageId: message.id, model: message.model as string | undefined, usage: message.usage });
    if (body.stream) return writeMessageStream(res, message, `req_${message.id}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(message));
  } catch (err) {
    onFailure?.(err);
    refuse(res, 500, 'api_error', `dex model relay: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** An answer in the Messages API's error form, so the session reads it as the API's. */
function refuse(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type, message } }));
}
