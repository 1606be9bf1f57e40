/**
 * A run started from a forge issue (docs/forge-triggers.md): which issue, the workflow id that makes it
 * one run per issue whatever the forge redelivers, and the comment dex keeps on the issue. Pure.
 */
import { safeName } from '../run/ids';

/** The issue a run works on: its number on the forge repository, and where a person sees it. */
export interface IssueRef {
  number: number;
  url?: string;
}

/** The id of the run of issue `number` of `owner/repo`: a second delivery of the same issue finds it taken. */
export const issueRunId = (owner: string, repo: string, number: number): string => `issue-${safeName(owner)}-${safeName(repo)}-${number}`;

/** The task id an issue's run gives its one task: its pull request's branch is `dex/issue-<n>`. */
export const issueTaskId = (number: number): string => `issue-${number}`;

/** What only dex's own state comment holds: how dex finds it again to edit it. */
export const STATE_MARKER = '<!-- dex:state -->';

/** The state comment's facts. */
export interface IssueState {
  state: 'running' | 'completed' | 'failed' | 'rejected' | 'cancelled';
  workflowId: string;
  /** The pull request that carries (or carried) the work. */
  pullRequest?: { number: number; url: string; merged?: boolean };
  /** Why it did not complete. */
  reason?: string;
  costUsd?: number;
}

/** dex's comment on the issue, in Markdown: the state first, then the run and its pull request. */
export function issueStateComment(s: IssueState): string {
  const pr = s.pullRequest ? `[#${s.pullRequest.number}](${s.pullRequest.url})${s.pullRequest.merged ? ' (merged)' : ''}` : undefined;
  const head =
    s.state === 'running' ? 'dex is working on this.' :
    s.state === 'completed' ? `**completed**${pr ? `: ${pr}` : ''}` :
    `**${s.state}**${s.reason ? `: ${s.reason}` : ''}`;
  const lines = [STATE_MARKER, head, '', `- run: \`${s.workflowId}\``];
  if (pr && s.state !== 'completed') lines.push(`- pull request: ${pr}`);
  if (s.costUsd !== undefined) lines.push(`- cost so far: ${s.costUsd.toFixed(2)} USD`);
  return `${lines.join('\n')}\n`;
}
