import { describe, expect, it } from 'vitest';
import { issueRunId, issueStateComment, STATE_MARKER } from '../../../core/forge/issue-run';

describe("an issue's run", () => {
  it('has one workflow id per issue of a repository', () => {
    expect(issueRunId('octo', 'demo', 7)).toBe('issue-octo-demo-7');
    expect(issueRunId('octo', 'demo', 7)).not.toBe(issueRunId('octo', 'demo', 8));
    expect(issueRunId('octo', 'demo', 7)).not.toBe(issueRunId('octo', 'other', 7));
  });

  it("says its state first in dex's comment, which carries the marker dex finds it by", () => {
    const running = issueStateComment({ state: 'running', workflowId: 'issue-octo-demo-7', costUsd: 0 });
    expect(running.startsWith(`${STATE_MARKER}\ndex is working on this.`)).toBe(true);
    const pullRequest = { number: 3, url: 'https://github.com/octo/demo/pull/3', merged: true };
    const done = issueStateComment({ state: 'completed', workflowId: 'issue-octo-demo-7', pullRequest, costUsd: 0.1234 });
    expect(done).toContain('**completed**: [#3](https://github.com/octo/demo/pull/3) (merged)');
    expect(done).toContain('- cost so far: 0.12 USD');
    const failed = issueStateComment({ state: 'failed', workflowId: 'issue-octo-demo-7', pullRequest: { ...pullRequest, merged: false }, reason: 'CI failed on PR #3' });
    expect(failed).toContain('**failed**: CI failed on PR #3');
    expect(failed).toContain('- pull request: [#3](https://github.com/octo/demo/pull/3)');
  });
});
