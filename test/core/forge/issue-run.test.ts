import { describe, expect, it } from 'vitest';
import { issueRunId, issueStateComment, requestIn, requestRunId, stateMarker } from '../../../core/forge/issue-run';

describe("an issue's run", () => {
  it('has one workflow id per issue of a repository', () => {
    expect(issueRunId('octo', 'demo', 7)).toBe('issue-octo-demo-7');
    expect(issueRunId('octo', 'demo', 7)).not.toBe(issueRunId('octo', 'demo', 8));
    expect(issueRunId('octo', 'demo', 7)).not.toBe(issueRunId('octo', 'other', 7));
  });

  it("says its state first in dex's comment, which carries the marker dex finds it by", () => {
    const running = issueStateComment({ state: 'running', workflowId: 'issue-octo-demo-7', costUsd: 0 });
    expect(running.startsWith(`${stateMarker('issue-octo-demo-7')}\ndex is working on this.`)).toBe(true);
    const pullRequest = { number: 3, url: 'https://github.com/octo/demo/pull/3', merged: true };
    const done = issueStateComment({ state: 'completed', workflowId: 'issue-octo-demo-7', pullRequest, costUsd: 0.1234 });
    expect(done).toContain('**completed**: [#3](https://github.com/octo/demo/pull/3) (merged)');
    expect(done).toContain('- cost so far: 0.12 USD');
    const failed = issueStateComment({ state: 'failed', workflowId: 'issue-octo-demo-7', pullRequest: { ...pullRequest, merged: false }, reason: 'CI failed on PR #3' });
    expect(failed).toContain('**failed**: CI failed on PR #3');
    expect(failed).toContain('- pull request: [#3](https://github.com/octo/demo/pull/3)');
  });

  it('reads a request made of the handle on a line of its own, and gives each comment its own run', () => {
    expect(requestIn('Could you?\n@dex add two()', 'dex')).toBe('add two()');
    expect(requestIn('@Dex   fix the parser  ', 'dex')).toBe('fix the parser');
    expect(requestIn('ask @dex to do it', 'dex')).toBeUndefined();
    expect(requestIn('@dexter do it', 'dex')).toBeUndefined();
    expect(requestIn('@dex', 'dex')).toBeUndefined();
    expect(requestIn('@my.bot do it', 'my.bot')).toBe('do it');
    expect(requestRunId('octo', 'demo', 7, 555)).toBe('issue-octo-demo-7-c555');
  });
});
