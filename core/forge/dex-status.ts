/**
 * dex's commit status on a pull request's head (docs/forge-triggers.md#dex-on-the-pull-request): its
 * name, and what each state of a landing shows. Pure: the landing decides, a forge activity sets it.
 */

/** The status's context on the forge: the landing's own reading of the checks leaves it out. */
export const DEX_STATUS_CONTEXT = 'dex';

/** One state of the `dex` status: GitHub's states, a line saying what dex does or waits for, and where the run is seen. */
export interface DexStatus {
  state: 'pending' | 'success' | 'failure' | 'error';
  description: string;
  url?: string;
}

/** What dex's one comment on its pull request says: the `dex` status's line, the run and task, the cost so far, and the run's Web UI page when known. */
interface LandingState {
  workflowId: string;
  taskId: string;
  status: DexStatus;
  costUsd: number;
  webUi?: string;
}

const HEADS: Record<DexStatus['state'], string> = { pending: 'dex is working on this', success: 'dex: done', failure: 'dex: stopped', error: 'dex: stopped' };

/** dex's comment on its pull request, in Markdown, led by `marker` (core/forge/issue-run.ts stateMarker): edited in place at every change of the landing. */
export function landingComment(marker: string, s: LandingState): string {
  const lines = [
    marker,
    `**${HEADS[s.status.state]}**: ${s.status.description}`,
    '',
    `- task \`${s.taskId}\` of run \`${s.workflowId}\`${s.webUi ? ` ([Web UI](${s.webUi}))` : ''}`,
    `- cost so far: ${s.costUsd.toFixed(2)} USD`,
  ];
  return `${lines.join('\n')}\n`;
}
