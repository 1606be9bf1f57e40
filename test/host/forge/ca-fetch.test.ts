import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchTrusting } from '../../../host/forge/ca-fetch';

// The fetch the GitHub forge uses behind a CA of its own (host/forge/ca-fetch.ts) follows redirects
// as fetch does; test/host/forge/forge-ca.test.ts has it over HTTPS against the fake forge.

/** A server that echoes what it got at /echo and redirects elsewhere: /to/STATUS?url. */
async function echoServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const redirect = /^\/to\/(\d+)$/.exec(url.pathname);
    if (redirect) return void res.writeHead(Number(redirect[1]), { location: decodeURIComponent(url.search.slice(1)) }).end();
    if (url.pathname === '/empty') return void res.writeHead(204).end();
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, authorization: req.headers.authorization, body })));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('fetchTrusting', () => {
  const fetchIt = fetchTrusting(rootCertificates.join('\n'));
  let here: { server: Server; origin: string };
  let elsewhere: { server: Server; origin: string };
  const auth = { authorization: 'token secret-token-value' };
  const to = (status: number, url: string) => `${here.origin}/to/${status}?${encodeURIComponent(url)}`;

  beforeAll(async () => {
    here = await echoServer();
    elsewhere = await echoServer();
  });
  afterAll(async () => {
    for (const { server } of [here, elsewhere]) await new Promise((resolve) => server.close(resolve));
  });

  it('keeps the token on a redirect to the same origin and drops it on one to another, reporting where it ended', async () => {
    const same = await fetchIt(to(302, `${here.origin}/echo`), { headers: auth });
    expect(await same.json()).toEqual({ method: 'GET', authorization: auth.authorization, body: '' });
    const other = await fetchIt(to(302, `${elsewhere.origin}/echo`), { headers: auth });
    expect(other.url).toBe(`${elsewhere.origin}/echo`);
    expect(await other.json()).toEqual({ method: 'GET', body: '' });
  });

  it('turns a POST into a GET on 303 and 302, keeps it on 307; manual leaves the redirect to the caller', async () => {
    const post = { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } };
    expect(await (await fetchIt(to(303, '/echo'), post)).json()).toEqual({ method: 'GET', body: '' });
    expect(await (await fetchIt(to(302, '/echo'), post)).json()).toEqual({ method: 'GET', body: '' });
    expect(await (await fetchIt(to(307, '/echo'), post)).json()).toEqual({ method: 'POST', body: '{"a":1}' });
    const manual = await fetchIt(to(302, '/echo'), { redirect: 'manual' });
    expect([manual.status, manual.headers.get('location')]).toEqual([302, '/echo']);
  });

  it('answers 204 with no body, and an aborted signal rejects with an AbortError', async () => {
    const empty = await fetchIt(`${here.origin}/empty`);
    expect([empty.status, empty.body]).toEqual([204, null]);
    const aborted = AbortSignal.abort();
    await expect(fetchIt(`${here.origin}/echo`, { signal: aborted })).rejects.toMatchObject({ name: 'AbortError' });
  });
});
