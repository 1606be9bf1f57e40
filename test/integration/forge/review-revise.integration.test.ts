/**
 * Reviews answered on the same pull request (docs/forge-triggers.md#reviews-answered-on-the-same-pr):
 * the real `dex webhook` and `dex worker` (spawned) on a dev server, the fake GitHub as the forge
 * (reviews, threads and replies as its REST API answers them, `node --test` as CI), `land.pr.profile:
 * review` so a green pull request waits for a person.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { issueRunId } from '../../../core/forge/issue-run';
import type { RoadmapResult } from '../../../core/roadmap/roadmap-types';
import { completionTurn, inPhase, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment, waitForGate } from '../../support/env/dex-environment';
import type { FakeReviewDraft, FakeReviewState } from '../../support/forge/fake-forge-reviews';
import { addOneTurns, useForgeTeam } from '../../support/forge/forge-team';
import { webhook } from '../../support/forge/ci-webhook';
import { allText } from '../../support/env/tree-text';

const ONE = "/** one */\nexports.one = () => 1;\n";
// The fake forge numbers review comments from 6000001, dex's replies among them, in the order the first test makes them.
const [C1, C2, C3, C4, ANSWER] = [6000001, 6000002, 6000003, 6000007, 6000009];

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    ...addOneTurns('issue-101'),
    ...inPhase('revise', [
      // The first review: three comments on two files, all taken in one run.
      toolTurn('issue-101', ['write_file', { path: 'src/one.js', content: ONE }], ['write_file', { path: 'test/one.test.js', content: "require('node:test')('one', () => require('node:assert').strictEqual(require('../src/one').one(), 1));\n" }]),
      completionTurn('issue-101', { status: 'complete', summary: `c${C1}: added a doc comment\nc${C2}: kept the arrow function, as asked\nc${C3}: added a test of one()` }),
      // The second: one unclear comment, asked back.
      completionTurn('issue-101', { status: 'complete', summary: `c${C4}? Better how: faster, or clearer?` }),
      // The answer in that thread.
      toolTurn('issue-101', ['write_file', { path: 'src/one.js', content: `${ONE}/** one, clearer */\n` }]),
      completionTurn('issue-101', { status: 'complete', summary: `c${ANSWER}: made it clearer` }),
    ]),
    toolTurn('issue-102', ['write_file', { path: 'src/two.js', content: 'exports.two = () => 2;\n' }]),
    completionTurn('issue-102', { status: 'complete', summary: 'two returns 2' }),
    ...inPhase('revise', [
      toolTurn('issue-102', ['write_file', { path: 'src/two.js', content: '// two\nexports.two = () => 2;\n' }]),
      completionTurn('issue-102', { status: 'complete', summary: 'commented two' }),
      toolTurn('issue-102', ['write_file', { path: 'src/two.js', content: '// two, the number\nexports.two = () => 2;\n' }]),
      completionTurn('issue-102', { status: 'complete', summary: 'said which two' }),
    ]),
    // `@dex` in comment 777 on pull request #2, which a person opened.
    toolTurn('issue-2-c777', ['write_file', { path: 'test/greet.test.js', content: "require('node:test')('greet', () => require('node:assert').strictEqual(require('../src/greet').greet(), 'hi'));\n" }]),
    completionTurn('issue-2-c777', { status: 'complete', summary: 'tested greet' }),
    ...inPhase('revise', [
      toolTurn('issue-2-c777', ['write_file', { path: 'src/greet.js', content: "// greets\nexports.greet = () => 'hi';\n" }]),
      completionTurn('issue-2-c777', { status: 'complete', summary: 'commented greet' }),
      // `@dex also export it as hello` on the same pull request, later.
      toolTurn('issue-2-c777', ['write_file', { path: 'src/greet.js', content: "// greets\nexports.greet = () => 'hi';\nexports.hello = exports.greet;\n" }]),
      completionTurn('issue-2-c777', { status: 'complete', summary: 'exported greet as hello too' }),
    ]),
  ],
});

// CI held while a test needs it to run long: a review that comes meanwhile must wait for it.
let hold: Promise<void> | undefined;
let release = () => {};
const TOKEN = 'review-revise-token-0123456789';
const SECRET = 'review-revise-webhook-secret';
const team = useForgeTeam(dex, {
  token: TOKEN,
  secret: SECRET,
  files: {
    'package.json': '{ "name": "review-demo", "private": true }\n',
    'dex.config.yaml': 'verify: ["node --test"]\nsetup: false\nland:\n  remote: origin\n  mode: pr\n  pr: { profile: review }\n',
    'test/ok.test.js': "require('node:test')('ok', () => {});\n",
  },
  checks: [{
    name: 'test',
    run: async (dir) => {
      await hold;
      return promisify(execFile)(process.execPath, ['--test'], { cwd: dir }).then(({ stdout }) => ({ ok: true, log: stdout }), (err: { stdout?: string }) => ({ ok: false, log: err.stdout ?? '' }));
    },
  }],
});

/** Submits a review on the fake forge as `author` would on its page, and posts GitHub's `pull_request_review submitted` delivery of it. */
function review(pr: number, author: string, state: FakeReviewState, comments: FakeReviewDraft[] = [], body = '') {
  const made = team.forge.reviews.submit(pr, author, { state, body, comments });
  return { ...made, delivered: deliverReview(pr, made.review.id, author, state.toLowerCase()) };
}

function deliverReview(pr: number, id: number, author: string, state: string) {
  const p = team.forge.pulls[pr - 1];
  return team.deliver('pull_request_review', { action: 'submitted', review: { id, state, body: '', user: { login: author, type: 'User' } }, pull_request: { number: pr, body: p.body, head: { ref: p.head } } });
}

// Each completed check signals the run, as the receiver does for GitHub's check_run deliveries: no wait sleeps out a 30 s poll.
const stops: (() => void)[] = [];
afterAll(() => stops.forEach((stop) => stop()));

/** Labels a new issue `dex`; resolves to its run's handle once its pull request is green and waits at `merge`. */
async function issueAtMerge(title: string, body: string) {
  const issue = team.forge.issues.open(title, body);
  const url = `${team.repository().html_url as string}/issues/${issue.number}`;
  await team.deliver('issues', { action: 'labeled', label: { name: 'dex' }, issue: { number: issue.number, title, body, html_url: url } });
  const handle = dex.env.client.workflow.getHandle(issueRunId(team.forge.owner, team.forge.repo, issue.number));
  stops.push(webhook(team.forge, handle));
  await waitForGate(handle, 'merge', { timeoutMs: 120_000 });
  return { handle, pr: team.forge.pulls.find((p) => p.head === `dex/issue-${issue.number}`)! };
}

const pushesTo = (branch: string) => team.forge.pushes.filter((u) => u.ref === `refs/heads/${branch}` && !/^0+$/.test(u.sha)).length;
const revisePrompts = (task: string) => dex.requestsFor(task).filter((r) => r.headers['x-dex-phase'] === 'revise');

describe('reviews answered on the same pull request', () => {
  it('three comments on two files: one revise run, one push, a reply in each thread, CI again; an unclear fourth is asked back and the answer resumes it; approved, it merges', { timeout: 300_000 }, async () => {
    const { forge } = team;
    forge.issues.roles.set('ana', 'write');
    const { handle, pr } = await issueAtMerge('Add one', 'src/one.js should export one().');
    const head = pr.headSha;
    expect(pushesTo(pr.head)).toBe(1);

    // eve reads the repository: her review starts nothing.
    const eve = review(pr.number, 'eve', 'CHANGES_REQUESTED', [], 'Rewrite it all.');
    expect((await eve.delivered).body.said).toBe(`${forge.owner}/${forge.repo}#${pr.number}: review ${eve.review.id} by eve (changes requested): needs write access (eve has read): ignored`);

    const first = review(pr.number, 'ana', 'CHANGES_REQUESTED', [
      { path: 'src/one.js', line: 1, body: 'Say what one returns.' },
      { path: 'src/one.js', line: 1, body: 'Keep the arrow function.' },
      { path: 'test/one.test.js', line: 1, body: 'Test one() itself.' },
    ]);
    expect(first.comments.map((c) => c.id)).toEqual([C1, C2, C3]);
    expect((await first.delivered).body.said).toBe(`${forge.owner}/${forge.repo}#${pr.number}: review ${first.review.id} by ana (changes requested): told ${handle.workflowId} (task issue-101)`);
    // Redelivered: the run takes it once.
    await deliverReview(pr.number, first.review.id, 'ana', 'changes_requested');
    await expect.poll(() => forge.reviews.on(pr.number).filter((c) => c.author === 'dex-bot').length, { timeout: 120_000, interval: 500 }).toBe(3);
    await waitForGate(handle, 'merge', { timeoutMs: 120_000 });

    // One revise run told all three comments, with their files; one push; CI again on the new head.
    expect(revisePrompts('issue-101')).toHaveLength(2); // its two model turns
    const prompt = JSON.stringify(revisePrompts('issue-101')[0].body!.messages);
    for (const text of [`[c${C1}] on src/one.js:1`, 'Say what one returns.', `[c${C2}] on src/one.js:1`, `[c${C3}] on test/one.test.js:1`, 'Test one() itself.']) expect(prompt).toContain(text);
    expect(pushesTo(pr.head)).toBe(2);
    const revised = await forge.head(pr.head);
    expect(revised).not.toBe(head);
    expect(forge.ci.onSha(revised).map((r) => [r.name, r.conclusion])).toEqual([['test', 'success']]);
    // A reply in each thread, with what changed and the commit.
    const replies = forge.reviews.comments.filter((c) => c.author === 'dex-bot');
    expect(replies.map((c) => [c.inReplyTo, c.body.split('\n')[0]])).toEqual([[C1, 'added a doc comment'], [C2, 'kept the arrow function, as asked'], [C3, 'added a test of one()']]);
    expect(replies[0].body).toContain(`_dex, in ${revised.slice(0, 7)}._`);
    // dex's replies are reviews on GitHub too: delivered, they start nothing.
    const own = forge.reviews.reviews.find((r) => r.author === 'dex-bot')!;
    expect((await deliverReview(pr.number, own.id, 'dex-bot', 'commented')).body.said).toMatch(/: dex's own: ignored$/);

    // A fourth comment dex cannot act on: it asks back in the thread and waits.
    const unclear = review(pr.number, 'ana', 'COMMENTED', [{ path: 'src/one.js', line: 2, body: 'Make this better.' }]);
    expect(unclear.comments[0].id).toBe(C4);
    await unclear.delivered;
    const asked = await waitForGate(handle, 'answer', { timeoutMs: 120_000 });
    expect(asked.waitingFor?.reason).toMatch(new RegExp(`^PR #${pr.number}: dex asked in 1 review thread and waits for the answer`));
    expect(forge.reviews.thread(C4).map((c) => [c.author, c.body.split('\n')[0]])).toEqual([['ana', 'Make this better.'], ['dex-bot', 'Better how: faster, or clearer?']]);

    // The answer in the thread resumes it: the revise run sees the whole thread.
    const answer = review(pr.number, 'ana', 'COMMENTED', [{ inReplyTo: C4, body: 'Clearer.' }]);
    expect(answer.comments[0].id).toBe(ANSWER);
    await answer.delivered;
    await waitForGate(handle, 'merge', { timeoutMs: 120_000 });
    const answered = JSON.stringify(revisePrompts('issue-101').at(-1)!.body!.messages);
    expect(answered).toContain('earlier, ana: Make this better.');
    expect(answered).toContain('earlier, dex-bot: Better how: faster, or clearer?');
    expect(forge.reviews.thread(C4).at(-1)!.body).toMatch(/^made it clearer\n/);

    // Approved on the forge: the merge gate passes, the pull request merges once.
    await review(pr.number, 'ana', 'APPROVED').delivered;
    const result = (await handle.result()) as RoadmapResult;
    dex.recordHistory(handle.workflowId, 'roadmap-workflow-reviews.json');
    expect(result.tasks.map((t) => [t.id, t.state])).toEqual([['issue-101', 'completed']]);
    expect(forge.pulls[pr.number - 1].merged).toBe(true);
    expect((await promisify(execFile)('git', ['-C', forge.bare, 'show', 'main:src/one.js'])).stdout).toContain('/** one, clearer */');
    // dex's status on each head said what it did; the merged head's says so. It was never a check dex waited for.
    const statuses = forge.statuses.filter((st) => st.context === 'dex');
    expect(statuses.map((st) => st.description)).toEqual(expect.arrayContaining(['waiting for CI', "revising after ana's review", 'green: waiting for you to approve the merge']));
    expect(statuses.at(-1)).toMatchObject({ sha: forge.pulls[pr.number - 1].headSha, state: 'success', description: 'merged' });
    // The token and the webhook's secret are in no history, log, reply, status or DEX_HOME (the sandbox's view is inside it).
    const history = JSON.stringify(await handle.fetchHistory());
    const onForge = JSON.stringify([forge.reviews.comments, forge.issues.comments, forge.statuses]);
    for (const secret of [TOKEN, SECRET]) {
      for (const [where, text] of [['history', history], ['logs', team.log()], ['forge', onForge], ['DEX_HOME', allText(team.cli.DEX_HOME!)]]) expect(text.includes(secret), where).toBe(false);
    }
  });

  it('@dex on a pull request a person opened adds a commit to its branch; its reviews and /dex approve reach that run; the branch is kept', { timeout: 300_000 }, async () => {
    const { forge } = team;
    const theirs = await forge.commit('feature/greet', { 'src/greet.js': "exports.greet = () => 'hi';\n" }, 'greet');
    const opened = await fetch(`${forge.apiUrl}/repos/${forge.owner}/${forge.repo}/pulls`, {
      method: 'POST', headers: { authorization: `token ${team.cli.GITHUB_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ head: 'feature/greet', base: 'main', title: 'Greet', body: 'Adds greet.' }),
    });
    const number = ((await opened.json()) as { number: number }).number;
    expect(number).toBe(2);
    const asked = await team.deliver('issue_comment', { action: 'created', issue: { number, title: 'Greet', body: 'Adds greet.', pull_request: { url: 'x' } }, comment: { id: 777, body: '@dex add a test for greet', user: { login: 'ana', type: 'User' } } });
    const workflowId = `${issueRunId(forge.owner, forge.repo, number)}-c777`;
    expect(asked.body.said).toBe(`${forge.owner}/${forge.repo}#${number}: started ${workflowId} on feature/greet`);
    const handle = dex.env.client.workflow.getHandle(workflowId);
    stops.push(webhook(forge, handle));
    await waitForGate(handle, 'merge', { timeoutMs: 120_000 });
    // dex's commit is on the person's branch, after theirs; no pull request of dex's was opened.
    const head = await forge.head('feature/greet');
    expect((await promisify(execFile)('git', ['-C', forge.bare, 'rev-list', '--parents', '-n', '1', head])).stdout.trim().split(' ')[1]).toBe(theirs);
    expect((await promisify(execFile)('git', ['-C', forge.bare, 'show', `${head}:test/greet.test.js`])).stdout).toContain("'greet'");
    expect(forge.pulls).toHaveLength(2);
    expect(forge.issues.on(number).map((c) => c.body).join('\n')).toContain('@ana: on it, on `feature/greet`: started');

    // A review of that pull request reaches the run, found by dex's reply there.
    const asked2 = review(number, 'ana', 'CHANGES_REQUESTED', [{ path: 'src/greet.js', line: 1, body: 'Say what it does.' }]);
    expect((await asked2.delivered).body.said).toBe(`${forge.owner}/${forge.repo}#${number}: review ${asked2.review.id} by ana (changes requested): told ${workflowId} (task issue-2-c777)`);
    await expect.poll(() => forge.reviews.thread(asked2.comments[0].id).length, { timeout: 120_000, interval: 500 }).toBe(2);
    await waitForGate(handle, 'merge', { timeoutMs: 120_000 });
    // `@dex` again on that pull request goes to the same run, as a review: a commit, and dex's answer on the pull request.
    const again = await team.deliver('issue_comment', { action: 'created', issue: { number, title: 'Greet', body: 'Adds greet.', pull_request: { url: 'x' } }, comment: { id: 779, body: '@dex also export it as hello', user: { login: 'ana', type: 'User' } } });
    expect(again.body.said).toBe(`${forge.owner}/${forge.repo}#${number}: @dex by ana: on it: told ${workflowId} (task issue-2-c777), which takes it up on this branch`);
    await expect.poll(() => forge.issues.on(number).some((c) => c.author === 'dex-bot' && c.body.startsWith('exported greet as hello too')), { timeout: 120_000, interval: 500 }).toBe(true);
    await waitForGate(handle, 'merge', { timeoutMs: 120_000 });
    expect((await promisify(execFile)('git', ['-C', forge.bare, 'show', 'feature/greet:src/greet.js'])).stdout).toContain('exports.hello');
    const approved = await team.deliver('issue_comment', { action: 'created', issue: { number, title: 'Greet', body: 'Adds greet.', pull_request: { url: 'x' } }, comment: { id: 778, body: '/dex approve', user: { login: 'ana', type: 'User' } } });
    expect(approved.body.said).toBe(`${forge.owner}/${forge.repo}#${number}: /dex approve by ana: approved gate "merge" of task issue-2-c777 of ${workflowId}`);
    expect(((await handle.result()) as RoadmapResult).tasks.map((t) => t.state)).toEqual(['completed']);
    expect(forge.pulls[number - 1].merged).toBe(true);
    expect(await forge.head('feature/greet')).toBeTruthy(); // the person's branch stays
  });

  it('a review that comes while CI runs is taken after it, once, not lost', { timeout: 300_000 }, async () => {
    const { forge } = team;
    const { handle, pr } = await issueAtMerge('Add two', 'src/two.js should export two().');
    // CI is held from here on: the first review's push waits for it.
    hold = new Promise((resolve) => (release = resolve));
    await review(pr.number, 'ana', 'CHANGES_REQUESTED', [{ path: 'src/two.js', line: 1, body: 'Comment it.' }]).delivered;
    await expect.poll(async () => forge.ci.onSha(await forge.head(pr.head)).map((r) => r.status), { timeout: 120_000, interval: 500 }).toEqual(['in_progress']);
    const second = review(pr.number, 'ana', 'CHANGES_REQUESTED', [{ path: 'src/two.js', line: 1, body: 'Say which two.' }]);
    await second.delivered;
    await deliverReview(pr.number, second.review.id, 'ana', 'changes_requested');
    await expect.poll(async () => JSON.stringify(await handle.query('status')), { timeout: 30_000, interval: 300 }).toContain(`review ${second.review.id}, queued`);
    const ciRun = forge.ci.onSha(await forge.head(pr.head))[0];
    expect(revisePrompts('issue-102')).toHaveLength(2); // the first review's run only
    hold = undefined;
    release();
    await expect.poll(() => forge.reviews.on(pr.number).filter((c) => c.author === 'dex-bot').length, { timeout: 120_000, interval: 500 }).toBe(2);
    await waitForGate(handle, 'merge', { timeoutMs: 120_000 });
    // The second review's run came after the CI it arrived during had completed, and ran once.
    expect(revisePrompts('issue-102')).toHaveLength(4);
    expect(revisePrompts('issue-102')[2].time).toBeGreaterThan(Date.parse(ciRun.completedAt!));
    expect(pushesTo(pr.head)).toBe(3);
    await review(pr.number, 'ana', 'APPROVED').delivered;
    expect(((await handle.result()) as RoadmapResult).tasks.map((t) => t.state)).toEqual(['completed']);
  });
});
