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

/** The task id an issue's run gives its one task (its pull request's branch is `dex/issue-<n>`); a request's adds its comment. */
export const issueTaskId = (number: number, commentId?: number): string => `issue-${number}${commentId !== undefined ? `-c${commentId}` : ''}`;

/** What only dex's state comment of run `workflowId` holds: how dex finds it again to edit it (one per run: an issue may have several). */
export const stateMarker = (workflowId: string): string => `<!-- dex:state ${workflowId} -->`;

/** The id of the run a person's `@dex <request>` in comment `commentId` of issue `number` starts: one run per request. */
export const requestRunId = (owner: string, repo: string, number: number, commentId: number): string => `${issueRunId(owner, repo, number)}-c${commentId}`;

/** The state comment's facts. */
export interface IssueState {
  state: 'running' | 'completed' | 'failed' | 'rejected' | 'cancelled';
  workflowId: string;
  /** The pull request that carries (or carried) the work. */
  pullRequest?: { number: number; url: string; merged?: boolean };
  /** Why it did not complete. */
  reason?: string;
  costUsd?: number;
  /** An issue's roadmap: each task's state and pull request. */
  tasks?: { id: string; state: string; pullRequest?: { number: number; url: string; merged?: boolean } }[];
}

const prLink = (pr: { number: number; url: string; merged?: boolean }) => `[#${pr.number}](${pr.url})${pr.merged ? ' (merged)' : ''}`;

/** dex's comment on the issue, in Markdown: the state first, then the run and its pull request. */
export function issueStateComment(s: IssueState): string {
  const pr = s.pullRequest ? prLink(s.pullRequest) : undefined;
  const head =
    s.state === 'running' ? 'dex is working on this.' :
    s.state === 'completed' ? `**completed**${pr ? `: ${pr}` : ''}` :
    `**${s.state}**${s.reason ? `: ${s.reason}` : ''}`;
  const lines = [stateMarker(s.workflowId), head, '', `- run: \`${s.workflowId}\``];
  if (pr && s.state !== 'completed') lines.push(`- pull request: ${pr}`);
  for (const t of s.tasks ?? []) lines.push(`- ${t.id}: ${t.state}${t.pullRequest ? `, ${prLink(t.pullRequest)}` : ''}`);
  if (s.costUsd !== undefined) lines.push(`- cost so far: ${s.costUsd.toFixed(2)} USD`);
  return `${lines.join('\n')}\n`;
}

/** The request `@<handle> <request>` on a line of its own in a comment asks for, if any. */
export function requestIn(body: string, handle: string): string | undefined {
  const escaped = handle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^@${escaped}[ \\t]+(\\S.*)$`, 'im').exec(body);
  return m?.[1].trim();
}
