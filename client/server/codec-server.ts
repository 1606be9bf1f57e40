/**
 * Temporal's codec server protocol over dex's payload codec (docs/production.md#payload-encryption):
 * `POST /encode` and `POST /decode` (also under a namespace segment, `/NS/decode`) take and
 * answer `{"payloads":[…]}` in proto3 JSON (metadata values and data in base64), so the stock
 * CLI (`--codec-endpoint`) and the Web UI (its codec endpoint setting) show sealed payloads.
 * The Web UI calls it from the browser: CORS answers the UI's origin only.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpError, readBody } from './http-body';

/** A codec server listening on loopback. */
export interface CodecServer {
  url: string;
  close(): Promise<void>;
}

interface CodecServerOptions {
  codec: PayloadCodec;
  /** 0 picks a free port. */
  port: number;
  /** Browser origins allowed to call it (the Web UI's), e.g. `http://127.0.0.1:8233`. */
  origins: string[];
  /** Where to listen; loopback by default, since whoever reaches it can decrypt. */
  host?: string;
}

/** JSON payloads can be large (a whole history page), but not unbounded. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const ROUTE = /^(?:\/[^/]+)?\/(encode|decode)\/?$/;

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

function fromJson(p: JsonPayload): Payload {
  const metadata = Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64')]));
  return { metadata, data: Buffer.from(p.data ?? '', 'base64') };
}

function toJson(p: Payload): JsonPayload {
  const metadata = Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')]));
  return { metadata, data: Buffer.from(p.data ?? new Uint8Array()).toString('base64') };
}

function parsePayloads(body: string): Payload[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
  const payloads = (parsed as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(payloads)) throw new HttpError(400, 'expected {"payloads":[…]}');
  return (payloads as JsonPayload[]).map(fromJson);
}

/** The CORS headers for `origin` when it is one the server allows; none otherwise (the browser then refuses). */
function corsHeaders(origin: string | undefined, allowed: string[]): Record<string, string> {
  if (!origin || !allowed.includes(origin)) return {};
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Allow-Methods': 'POST, OPTIONS',
    'Access-Control-Allow-Headers': 'Content-Type, X-Namespace, Authorization',
    'Access-Control-Max-Age': '600',
    Vary: 'Origin',
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, opts: CodecServerOptions): Promise<void> {
  const cors = corsHeaders(req.headers.origin, opts.origins);
  const send = (status: number, body?: unknown): void => {
    res.writeHead(status, { ...cors, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const route = ROUTE.exec((req.url ?? '/').split('?')[0]);
  try {
    if (!route) throw new HttpError(404, 'not found: POST /encode or /decode');
    if (req.method === 'OPTIONS') return send(204);
    if (req.method !== 'POST') throw new HttpError(405, 'only POST');
    const payloads = parsePayloads((await readBody(req, MAX_BODY_BYTES)).toString('utf8'));
    const out = route[1] === 'encode' ? await opts.codec.encode(payloads) : await opts.codec.decode(payloads);
    send(200, { payloads: out.map(toJson) });
  } catch (err) {
    const status = err instanceof HttpError ? err.status : 400;
    send(status, { error: (err as Error).message });
  }
}

/** Starts the codec server; resolves once it listens. */
export async function startCodecServer(opts: CodecServerOptions): Promise<CodecServer> {
  const host = opts.host ?? '127.0.0.1';
  const server: Server = createServer((req, res) => void handle(req, res, opts));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
