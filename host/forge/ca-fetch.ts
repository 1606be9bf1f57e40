// A fetch for a forge behind a CA of its own (docs/landing-through-prs.md#a-forge-behind-its-own-ca).
// Node 20's fetch trusts only what the process trusts (its roots, NODE_EXTRA_CA_CERTS read at start)
// and takes other CAs only through the undici package's Agent, which dex does not install; so these
// requests go through node:https with `ca`, and come back as a fetch Response, which is all
// @octokit/rest reads. As fetch does: redirects are followed (20 at most; 303, and a POST's 301/302,
// turn into a GET), one to another origin drops the Authorization header (GitHub sends a job's log
// from a signed URL elsewhere: the token must not follow), and the signal aborts the request and its body.

import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

const MAX_REDIRECTS = 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers a redirect to another origin does not carry, as fetch. */
const ORIGIN_BOUND = ['authorization', 'proxy-authorization', 'cookie'];
/** Statuses whose Response has no body. */
const NULL_BODY = new Set([204, 205, 304]);

/** fetch's own failure: a TypeError whose cause is what went wrong (Octokit reports the cause's message). */
const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });

/** One request, no redirect followed: its response, once the headers arrived. */
function send(url: URL, method: string, headers: OutgoingHttpHeaders, body: string | Uint8Array | undefined, agent: Agent, signal?: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const options = { method, headers, signal };
    const req = url.protocol === 'https:' ? httpsRequest(url, { ...options, agent }) : httpRequest(url, options);
    req.once('response', resolve);
    req.once('error', (err) => reject(err.name === 'AbortError' ? err : fetchFailed(err)));
    req.end(body);
  });
}

/** The fetch Response of `res`, its body streamed (destroyed when `signal` aborts), its `url` the one answered. */
function toResponse(res: IncomingMessage, url: URL, signal?: AbortSignal): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const one of value === undefined ? [] : [value].flat()) headers.append(name, one);
  }
  const status = res.statusCode ?? 500;
  const abort = () => res.destroy(signal?.reason instanceof Error ? signal.reason : undefined);
  signal?.addEventListener('abort', abort, { once: true });
  res.once('close', () => signal?.removeEventListener('abort', abort));
  if (NULL_BODY.has(status)) res.resume();
  const body = NULL_BODY.has(status) ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
  const response = new Response(body, { status, statusText: res.statusMessage ?? '', headers });
  Object.defineProperty(response, 'url', { value: url.href });
  return response;
}

/** A fetch (string or byte bodies) that trusts the certificate authorities of `ca` (PEM), and no others, over HTTPS. */
export function fetchTrusting(ca: string): typeof fetch {
  const agent = new Agent({ ca });
  return async (input, init = {}) => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body ?? undefined;
    if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) throw fetchFailed(new Error('only a string or bytes can be sent'));
    const headers = Object.fromEntries(new Headers(init.headers));
    const signal = init.signal ?? undefined;
    for (let redirects = 0; ; redirects++) {
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw fetchFailed(new Error(`cannot fetch ${url.protocol} URLs`));
      const res = await send(url, method, headers, body, agent, signal);
      const location = res.headers.location;
      if (!REDIRECTS.has(res.statusCode ?? 0) || !location || init.redirect === 'manual') return toResponse(res, url, signal);
      res.resume();
      if (init.redirect === 'error' || redirects === MAX_REDIRECTS) throw fetchFailed(new Error(`redirected ${redirects + 1} times, last to ${location}`));
      const next = new URL(location, url);
      if (next.origin !== url.origin) for (const name of ORIGIN_BOUND) delete headers[name];
      if (res.statusCode === 303 ? method !== 'HEAD' : res.statusCode !== 307 && res.statusCode !== 308 && method === 'POST') {
        method = 'GET';
        body = undefined;
        delete headers['content-type'];
        delete headers['content-length'];
      }
      url = next;
    }
  };
}
