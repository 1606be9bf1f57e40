// The state comment on the issue a run came from (docs/forge-triggers.md#the-state-comment), one per
// issue, edited in place: idempotent, a retry writes the same text over the same comment.

import type { ForgeTarget } from '../../core/roadmap/pull-request-types';
import { STATE_MARKER } from '../../core/forge/issue-run';
import { upsertGithubIssueComment } from '../../host/forge/github-issues';
import { heartbeatingWhileRunning } from '../run/local-heartbeat';

export const createIssueCommentActivities = () =>
  heartbeatingWhileRunning({
    /** Writes `body` (which holds dex's marker) as dex's one comment on issue `issue`; returns its URL. */
    async commentOnIssue(input: { target: ForgeTarget; issue: number; body: string }): Promise<{ url: string }> {
      return { url: await upsertGithubIssueComment(input.target, input.issue, STATE_MARKER, input.body) };
    },
  });
