// The state comment on the issue a run came from (docs/forge-triggers.md#the-state-comment), one per
// issue, edited in place: idempotent, a retry writes the same text over the same comment.

import type { ForgeTarget } from '../../core/roadmap/pull-request-types';
import { stateMarker } from '../../core/forge/issue-run';
import { closeGithubIssue, upsertGithubIssueComment } from '../../host/forge/github-issues';
import { heartbeatingWhileRunning } from '../run/local-heartbeat';

export const createIssueCommentActivities = () =>
  heartbeatingWhileRunning({
    /** Writes `body` (which holds run `run`'s marker) as that run's one comment on issue `issue`, and closes the issue when `close`; returns the comment's URL. */
    async commentOnIssue(input: { target: ForgeTarget; issue: number; run: string; body: string; close?: boolean }): Promise<{ url: string }> {
      const url = await upsertGithubIssueComment(input.target, input.issue, stateMarker(input.run), input.body);
      if (input.close) await closeGithubIssue(input.target, input.issue);
      return { url };
    },
  });
