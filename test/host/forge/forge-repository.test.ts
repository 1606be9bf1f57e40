import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseForgeRepository, type ForgeRepository } from '../../../core/fleet/repo-locator';
import { readForgeRepository } from '../../../host/forge/forge-repository';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';

// The check of a forge repository (host/forge/forge-repository.ts) against the fake GitHub: one GET
// /repos/{owner}/{repo}, its refusals classified as the forge activities' are.
const TOKEN = 'forge-repo-token-0123456789';
const env = { GITHUB_TOKEN: TOKEN };

let forge: FakeForge;
let repo: (name?: string, over?: Partial<ForgeRepository>) => ForgeRepository;

beforeAll(async () => {
  forge = await startFakeForge({ token: TOKEN, base: 'trunk' });
  // The fake's API over plain HTTP, unless a test asks for its HTTPS side.
  const secureApi = `${new URL(forge.remoteUrl).origin}/api/v3`;
  repo = (name = forge.repo, over = {}) => ({ ...parseForgeRepository(`${forge.owner}/${name}`, { tokenEnv: 'GITHUB_TOKEN', apiUrl: secureApi })!, apiUrl: forge.apiUrl, ...over });
});
afterAll(() => forge.close());

/** The failure `promise` ends with. */
const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('it was read'), (err: ApplicationFailure) => err);

describe('reading a forge repository before anything starts', () => {
  it("answers the repository's default branch when the token reads it", async () => {
    expect(await readForgeRepository(repo(), { env })).toEqual({ defaultBranch: 'trunk' });
    const asked = forge.requests.filter((r) => r.url === `/api/v3/repos/${forge.owner}/${forge.repo}`).at(-1);
    expect(asked?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('trusts a private CA given as caFile, over https, and refuses without retry a certificate it does not trust', async () => {
    const secure = new URL(forge.remoteUrl).origin;
    expect(await readForgeRepository(repo(forge.repo, { apiUrl: `${secure}/api/v3` }), { env, caFile: forge.caFile })).toEqual({ defaultBranch: 'trunk' });
    const untrusted = await failure(readForgeRepository(repo(forge.repo, { apiUrl: `${secure}/api/v3` }), { env }));
    expect([untrusted.type, untrusted.nonRetryable]).toEqual(['ForgeUntrusted', true]);
    expect(untrusted.message).toMatch(/certificate did not verify for octo\/demo \(self[- ]signed certificate/);
  });

  it('fails without retry, naming the variable and never the token, when the token is missing or refused', async () => {
    const asked = forge.requests.length;
    const missing = await failure(readForgeRepository(repo(), { env: {} }));
    // Without a token nothing is sent.
    expect(forge.requests.length).toBe(asked);
    expect([missing.type, missing.nonRetryable, missing.message]).toEqual(['ForgeAuth', true, `dex needs a token in GITHUB_TOKEN to reach octo/demo on ${repo().host}`]);
    const refused = await failure(readForgeRepository(repo(), { env: { GITHUB_TOKEN: 'wrong-token-000000000' } }));
    expect([refused.type, refused.nonRetryable, refused.message]).toEqual(['ForgeAuth', true, `${repo().host} refused the token in GITHUB_TOKEN for octo/demo (HTTP 401: Bad credentials)`]);
  });

  it('fails without retry when the repository is not there, and with retry when the forge is in trouble or out of reach', async () => {
    const missing = await failure(readForgeRepository(repo('nothing-here'), { env }));
    expect([missing.type, missing.nonRetryable, missing.message]).toEqual([
      'ForgeNotFound', true, `octo/nothing-here was not found on ${repo().host} (HTTP 404: it does not exist, or the token in GITHUB_TOKEN cannot read it)`,
    ]);
    forge.failNext(1, 502, 'Server Error');
    const trouble = await failure(readForgeRepository(repo(), { env }));
    expect([trouble.type, trouble.nonRetryable]).toEqual(['ForgeUnavailable', false]);
    forge.failNext(1, 403, 'API rate limit exceeded', { 'x-ratelimit-remaining': '0' });
    expect((await failure(readForgeRepository(repo(), { env }))).type).toBe('ForgeUnavailable');
    forge.failNext(1, 451, 'Repository access blocked');
    expect((await failure(readForgeRepository(repo(), { env }))).nonRetryable).toBe(true);

    // A port nothing listens on any more.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const away = await failure(readForgeRepository(repo(forge.repo, { apiUrl: `http://127.0.0.1:${port}/api/v3` }), { env }));
    expect([away.type, away.nonRetryable]).toEqual(['ForgeUnavailable', false]);
    expect(away.message).toMatch(/could not be reached to read octo\/demo \(connect ECONNREFUSED/);
  });
});
