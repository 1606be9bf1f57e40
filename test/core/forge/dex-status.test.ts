import { describe, expect, it } from 'vitest';
import { landingComment } from '../../../core/forge/dex-status';

describe("dex's comment on its pull request", () => {
  it('leads with its marker and what dex does, then the run and task, the Web UI page when known, and the cost so far', () => {
    const body = landingComment('<!-- m -->', { workflowId: 'roadmap-x', taskId: 'T1', status: { state: 'pending', description: 'waiting for CI' }, costUsd: 0.1234, webUi: 'https://ui.example/namespaces/default/workflows/roadmap-x' });
    expect(body).toBe('<!-- m -->\n**dex is working on this**: waiting for CI\n\n- task `T1` of run `roadmap-x` ([Web UI](https://ui.example/namespaces/default/workflows/roadmap-x))\n- cost so far: 0.12 USD\n');
  });

  it('says done or stopped at the end, and leaves the link out when the UI is not known', () => {
    expect(landingComment('<!-- m -->', { workflowId: 'r', taskId: 'T1', status: { state: 'success', description: 'merged' }, costUsd: 1 })).toContain('**dex: done**: merged\n\n- task `T1` of run `r`\n');
    expect(landingComment('<!-- m -->', { workflowId: 'r', taskId: 'T1', status: { state: 'failure', description: 'not landed: x' }, costUsd: 1 })).toContain('**dex: stopped**: not landed: x');
  });
});
