// A fake GitHub for tests of landing through pull requests: a local HTTP server speaking the part of
// GitHub's REST API host/forge/github-forge.ts uses, under /api/v3 (GitHub Enterprise's layout:
// Octokit's baseUrl is `apiUrl`), backed by a REAL bare repository that git pushes to over smart
// HTTP (served by `git http-backend`). Pull requests read their heads from that repository, merges
// are real commits there, and CI runs real checks in real checkouts (test/support/forge/fake-forge-ci.ts).
//
// Git is served over HTTPS (`remoteUrl`, a certificate made for this run: dex's remote git allows
// file, ssh and https only, host/git/dex-git.ts) and plain HTTP (`httpRemoteUrl`, for a test's own
// git). `trustIn(repo)` makes a repository's git trust the certificate, as an owner with a private
// CA would configure it; `land.pr.caFile: forge.caFile` does it through dex's own setting. The API
// is served over both too: `apiUrl` (HTTP) and `secureApiUrl` (HTTPS, the same certificate).
//
//   const forge = await startFakeForge({ token, checks: [{ name: 'test', command: 'npm test' }] });
//   await git(repo, ['remote', 'add', 'origin', forge.remoteUrl]); await forge.trustIn(repo);
//   target = { forge: 'github', apiUrl: forge.apiUrl, tokenEnv: 'GITHUB_TOKEN', owner: forge.owner, repo: forge.repo };
//   forge.beforeNextMerge(() => forge.commit('main', { 'x.txt': 'x' }));  // a racing merge: 405 next
//   forge.pullsCreated(); forge.pushesOf(sha); forge.requests; await forge.ciIdle(); await forge.close();
//
// It serves from the test's own process: push with asynchronous git (simple-git, execFile), never
// execFileSync, or the push waits on a server that cannot answer.

import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeCi } from './fake-forge-ci';
import { commitFiles, git, receivedUpdates, serveGit, type RefUpdate } from './fake-forge-git';
import { routeApi } from './fake-forge-api';
import { FakeIssues } from './fake-forge-issues';
import { FakeReviews } from './fake-forge-reviews';
import type { FakeForge, FakeForgeOptions, FakeStatus, PullRecord, RecordedRequest } from './fake-forge-types';

export type { FakeCheck } from './fake-forge-ci';
export type { FakeForge, FakeStatus } from './fake-forge-types';


const read = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** Starts a fake forge on 127.0.0.1 at a free port, with an empty bare repository (one commit on `base`). */
export async function startFakeForge(options: FakeForgeOptions): Promise<FakeForge> {
  const owner = options.owner ?? 'octo';
  const repo = options.repo ?? 'demo';
  const base = options.base ?? 'main';
  const root = mkdtempSync(join(tmpdir(), 'fake-forge-'));
  const bare = join(root, owner, `${repo}.git`);
  await git(root, ['init', '-q', '--bare', '-b', base, bare]);
  await git(bare, ['config', 'http.receivepack', 'true']);
  if (options.seed !== false) await commitFiles(bare, base, { 'README.md': `# ${repo}\n` }, 'initial commit');

  const checks = options.checks ?? [];
  const statuses: FakeStatus[] = [];
  const setStatus: FakeForge['setStatus'] = (sha, context, state, description) => {
    const status: FakeStatus = { id: 9_000_001 + statuses.length, sha, context, state, description: description ?? null, createdAt: new Date().toISOString() };
    statuses.push(status);
    return status;
  };
  const ci = new FakeCi(bare, checks, setStatus);
  const pushCount = new Map<string, number>();
  let created = 0;
  let mergeHook: (() => Promise<unknown>) | undefined;
  let failing: { count: number; status: number; message: string; headers: Record<string, string> } = { count: 0, status: 0, message: '', headers: {} };
  const requests: RecordedRequest[] = [];
  const pushes: RefUpdate[] = [];
  const pulls: PullRecord[] = [];

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const gitPath = `/${owner}/${repo}.git`;
  const caFile = join(root, 'cert.pem');
  const keyFile = join(root, 'key.pem');
  await new Promise<void>((resolve, reject) =>
    execFile('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', caFile,
      '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], (err) => (err ? reject(err) : resolve())),
  );
  const secure = createHttpsServer({ key: await readFile(keyFile), cert: await readFile(caFile) }, (req, res) => void handle(req, res));
  await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
  const secureOrigin = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;

  const web = `${secureOrigin}/${owner}/${repo}`;
  const tokenUser = 'dex-bot';
  const isPull = (n: number) => n >= 1 && n <= pulls.length;
  const at = { web, api: `${origin}/api/v3/repos/${owner}/${repo}`, tokenUser, isPull };
  const forge: FakeForge = {
    apiUrl: `${origin}/api/v3`,
    secureApiUrl: `${secureOrigin}/api/v3`,
    remoteUrl: `${secureOrigin}${gitPath}`,
    httpRemoteUrl: `${origin}${gitPath}`,
    caFile,
    trustIn: (repoPath) => git(repoPath, ['config', `http.${secureOrigin}/.sslCAInfo`, caFile]).then(() => undefined),
    bare, owner, repo, base, ci, pulls, requests, pushes, statuses, setStatus,
    issues: new FakeIssues(at, pulls),
    reviews: new FakeReviews(at),
    protection: options.protection === undefined ? { requiredChecks: checks.map((c) => c.name), strict: true } : options.protection,
    pullsCreated: () => created,
    pushesOf: (sha) => pushCount.get(sha) ?? 0,
    commit: (branch, files, message = `commit to ${branch}`) => commitFiles(bare, branch, files, message, base),
    beforeNextMerge: (action) => void (mergeHook = action),
    failNext: (count, status, message = 'Server Error', headers = {}) => void (failing = { count, status, message, headers }),
    ciIdle: () => ci.idle(),
    head: (branch) => git(bare, ['rev-parse', `refs/heads/${branch}`]),
    async close() {
      for (const listening of [server, secure]) {
        listening.closeAllConnections();
        await new Promise((resolve) => listening.close(resolve));
      }
      await ci.idle();
      await rm(root, { recursive: true, force: true });
    },
  };

  const authorized = (header: string | undefined): boolean => {
    const [scheme, value] = (header ?? '').split(/\s+/, 2);
    if (/^(token|bearer)$/i.test(scheme)) return value === options.token;
    if (/^basic$/i.test(scheme)) return Buffer.from(value ?? '', 'base64').toString().split(':').slice(1).join(':') === options.token;
    return false;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const body = await read(req);
      const url = new URL(req.url ?? '/', origin);
      requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: { ...req.headers }, body: body.toString('latin1') });
      if (url.pathname.startsWith(`${gitPath}/`)) return await handleGit(req, res, url, body);
      const log = /^\/_job-logs\/(\d+)$/.exec(url.pathname);
      if (log) {
        // Where GitHub's 302 for a job's log leads: a signed download URL, no token needed.
        const run = ci.byId(Number(log[1]));
        if (!run) return void res.writeHead(404).end();
        return void res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(run.log);
      }
      if (!url.pathname.startsWith('/api/v3/')) return json(res, 404, { message: 'Not Found' });
      if (!authorized(req.headers.authorization)) {
        return json(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
      }
      if (failing.count > 0) {
        failing.count -= 1;
        return void res.writeHead(failing.status, { 'content-type': 'application/json; charset=utf-8', ...failing.headers }).end(JSON.stringify({ message: failing.message }));
      }
      const answer = await routeApi(
        { forge, origin, takeMergeHook: () => [mergeHook, (mergeHook = undefined)][0], created: () => (created += 1) },
        req.method ?? 'GET', url.pathname.slice('/api/v3'.length), url.searchParams, body.length ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : {},
      );
      if (answer.redirect) return void res.writeHead(302, { location: answer.redirect }).end();
      if (answer.status === 204) return void res.writeHead(204).end();
      json(res, answer.status, answer.body, answer.headers);
    } catch (err) {
      json(res, 500, { message: `fake forge: ${err instanceof Error ? err.message : String(err)}` });
    }
  }

  async function handleGit(req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer): Promise<void> {
    if (options.gitAuth && !authorized(req.headers.authorization)) {
      return void res.writeHead(401, { 'www-authenticate': 'Basic realm="GitHub"' }).end();
    }
    const receiving = url.pathname.endsWith('/git-receive-pack') && req.method === 'POST';
    const updates = receiving ? receivedUpdates(body, req.headers['content-encoding'] as string | undefined) : [];
    const code = await serveGit(req, res, join(root), body, url.pathname, url.search.slice(1));
    if (!receiving || code !== 0) return;
    for (const update of updates) {
      pushes.push(update);
      pushCount.set(update.sha, (pushCount.get(update.sha) ?? 0) + 1);
      // GitHub runs CI on every branch push.
      if (update.ref.startsWith('refs/heads/') && !/^0+$/.test(update.sha)) ci.start(update.sha);
    }
  }

  return forge;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
}
