import { describe, expect, it } from 'vitest';
import { ciEventOf, issueTriggerOf, reviewOf, signatureOf, signedBy } from '../../../client/webhook/github-events';
import { runDex } from '../../support/env/dex-cli';

const SHA = '0123456789abcdef0123456789abcdef01234567';
const repository = { name: 'hello', full_name: 'octo/hello', owner: { login: 'octo' } };

describe("GitHub's webhook signature (X-Hub-Signature-256)", () => {
  const body = Buffer.from('{"zen":"Design for failure."}');

  it("is GitHub's documented HMAC-SHA256: the example from docs.github.com checks out", () => {
    // docs.github.com, "Validating webhook deliveries": secret "It's a Secret to Everybody", payload "Hello, World!".
    const example = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(signatureOf("It's a Secret to Everybody", 'Hello, World!')).toBe(example);
    expect(signedBy("It's a Secret to Everybody", Buffer.from('Hello, World!'), example)).toBe(true);
  });

  it.each([
    ['another secret', signatureOf('other', body)],
    ['another body', signatureOf('s3cret', '{"zen":"Design for success."}')],
    ['no header', undefined],
    ['the SHA-1 header form', 'sha1=0123456789abcdef0123456789abcdef01234567'],
    ['a truncated signature', signatureOf('s3cret', body).slice(0, 40)],
    ['not hex', `sha256=${'z'.repeat(64)}`],
  ])('refuses %s', (_what, header) => {
    expect(signedBy('s3cret', body, header)).toBe(false);
  });
});

describe('the CI change a delivery reports', () => {
  it.each([
    ['check_run', { action: 'completed', check_run: { head_sha: SHA, check_suite: { head_branch: 'dex/t1', head_sha: SHA } }, repository }, { branch: 'dex/t1', sha: SHA }, 'check_run completed'],
    ['check_run', { action: 'created', check_run: { head_sha: SHA, check_suite: { head_branch: null }, pull_requests: [{ head: { ref: 'dex/t1' } }] }, repository }, { branch: 'dex/t1', sha: SHA }, 'check_run created'],
    ['check_suite', { action: 'completed', check_suite: { head_branch: 'dex/t2', head_sha: SHA }, repository }, { branch: 'dex/t2', sha: SHA }, 'check_suite completed'],
    ['workflow_run', { action: 'completed', workflow_run: { head_branch: 'dex/t3', head_sha: SHA }, repository }, { branch: 'dex/t3', sha: SHA }, 'workflow_run completed'],
    ['pull_request', { action: 'closed', pull_request: { head: { ref: 'dex/t4', sha: SHA } }, repository }, { branch: 'dex/t4', sha: SHA }, 'pull_request closed'],
    ['status', { sha: SHA, state: 'success', branches: [{ name: 'dex/t5' }], repository }, { branch: 'dex/t5', sha: SHA }, 'status success'],
    ['status', { sha: SHA, state: 'pending', branches: [{ name: 'main' }, { name: 'dex/t5' }], repository }, { sha: SHA }, 'status pending'],
  ])('%s: %j', (event, payload, at, what) => {
    expect(ciEventOf(event, payload)).toEqual({ change: { owner: 'octo', repo: 'hello', ...at }, what });
  });

  it.each([
    ['push', { ref: 'refs/heads/main', after: SHA, repository }],
    ['issues', { action: 'opened', repository }],
    ['pull_request', { action: 'labeled', pull_request: { head: { ref: 'dex/t4', sha: SHA } }, repository }],
    ['check_suite', { action: 'completed', check_suite: { head_branch: 'dex/t2', head_sha: SHA } }],
    ['check_suite', { action: 'completed', check_suite: {}, repository }],
    ['status', 'not a payload'],
  ])('none for %s %j', (event, payload) => {
    expect(ciEventOf(event, payload)).toBeUndefined();
  });
});

describe.concurrent('dex webhook refuses to start without what it needs: exit 2, one line', () => {
  it.each([
    [[], { DEX_WEBHOOK_SECRET: 'x' }, /^dex: --port or --poll is required: dex webhook \[--port N\]/],
    [['--port', '0', '--every', '5'], { DEX_WEBHOOK_SECRET: 'x' }, /^dex: --every goes with --poll/],
    [['--poll', 'octo/hello', '--every', '0'], {}, /^dex: --every: expected whole seconds, at least 1, got "0"/],
    [['--poll', 'octo/hello'], { GITHUB_TOKEN: undefined }, /^dex: .*GITHUB_TOKEN/],
    [['--port', 'eighty'], { DEX_WEBHOOK_SECRET: 'x' }, /^dex: --port: expected a port number/],
    [['--port', '0'], {}, /^dex: DEX_WEBHOOK_SECRET is not set: dex webhook needs the secret the GitHub webhook signs its deliveries with/],
    [['--port', '0', '--secret-env', 'HOOK_SECRET'], { DEX_WEBHOOK_SECRET: 'x' }, /^dex: HOOK_SECRET is not set/],
  ])('dex webhook %j', async (args, env, message) => {
    const run = await runDex(['webhook', ...args], { env: { TEMPORAL_ADDRESS: '127.0.0.1:1', DEX_WEBHOOK_SECRET: undefined, HOOK_SECRET: undefined, NODE_OPTIONS: undefined, ...env }, timeoutMs: 30_000 });
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.code, run.stderr).toBe(2);
  });
});

describe('an issue given the trigger label', () => {
  const web = { ...repository, html_url: 'https://github.com/octo/hello' };
  const issue = { number: 7, title: 'Add sum', body: 'sum(a, b)', html_url: 'https://github.com/octo/hello/issues/7' };
  const labeled = (over: Record<string, unknown> = {}) => ({ action: 'labeled', label: { name: 'dex' }, issue, repository: web, ...over });

  it('is read from an issues labeled delivery of that label, whatever its case', () => {
    expect(issueTriggerOf('issues', labeled({ label: { name: 'DEX' } }), 'dex')).toEqual({
      repositoryUrl: 'https://github.com/octo/hello', owner: 'octo', repo: 'hello', number: 7, title: 'Add sum', body: 'sum(a, b)', url: issue.html_url,
    });
  });

  it.each([
    ['another label', 'issues', labeled({ label: { name: 'bug' } })],
    ['another action', 'issues', labeled({ action: 'opened' })],
    ['another event', 'issue_comment', labeled()],
    ['a pull request labelled', 'issues', labeled({ issue: { ...issue, pull_request: { url: 'x' } } })],
    ['no repository', 'issues', labeled({ repository: undefined })],
  ])('is not read from %s', (_what, event, payload) => {
    expect(issueTriggerOf(event, payload, 'dex')).toBeUndefined();
  });
});

describe('a review submitted on a pull request', () => {
  const web = { ...repository, html_url: 'https://github.com/octo/hello' };
  const submitted = (over: Record<string, unknown> = {}, review: Record<string, unknown> = {}) => ({
    action: 'submitted',
    review: { id: 80, state: 'changes_requested', body: 'Fix it', user: { login: 'ana', type: 'User' }, ...review },
    pull_request: { number: 3, body: 'proposed by dex (landing roadmap-x/T1)', head: { ref: 'dex/T1', sha: SHA } },
    repository: web,
    ...over,
  });

  it('is read with its pull request, description, state and author (a bot told apart)', () => {
    expect(reviewOf('pull_request_review', submitted())).toEqual({
      repositoryUrl: 'https://github.com/octo/hello', owner: 'octo', repo: 'hello', pr: 3, description: 'proposed by dex (landing roadmap-x/T1)', reviewId: 80, state: 'changes_requested', author: 'ana', bot: false,
    });
    expect(reviewOf('pull_request_review', submitted({}, { state: 'APPROVED', user: { login: 'ci[bot]', type: 'Bot' } }))).toMatchObject({ state: 'approved', author: 'ci[bot]', bot: true });
  });

  it.each([
    ['an edit', 'pull_request_review', submitted({ action: 'edited' })],
    ['a dismissal', 'pull_request_review', submitted({ action: 'dismissed' })],
    ['another state', 'pull_request_review', submitted({}, { state: 'pending' })],
    ['another event', 'pull_request_review_comment', submitted()],
    ['no repository', 'pull_request_review', submitted({ repository: undefined })],
  ])('is not read from %s', (_what, event, payload) => {
    expect(reviewOf(event, payload)).toBeUndefined();
  });
});
