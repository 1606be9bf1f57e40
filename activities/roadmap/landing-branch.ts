// Landing in branch mode (docs/roadmaps.md#landing-on-a-remote): the finalized task branch is pushed
// to the remote as `dex/<taskId>` for a merge request, never forced; a description of it is kept in
// the store and in a file under the dex home; the owner's `landCommand` (e.g. `gh pr create`) runs once.

import { formatUsd } from '../../core/text/spending';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { totalTokens } from '../../core/run/budget-reservation';
import { safeName } from '../../core/run/ids';
import type { TokenUsage } from '../../core/run/run-types';
import type { AttemptChoice, AttemptRow } from '../../core/task/attempts';
import { attemptMarkdown, attemptsHeadline } from '../../core/text/attempt-table';
import type { ActivityDeps } from '../deps';
import { landingRepository, type LandingPlace } from './landing-repository';
import { heartbeatingWhileRunning } from '../run/local-heartbeat';
import { runWithStderrApart } from '../../host/shell/stderr-apart';

/** How long the landCommand may run before it is killed and the landing waits at the `merge` gate. */
const LAND_COMMAND_TIMEOUT_MS = 10 * 60_000;
/** How much of a failing landCommand's output the `merge` gate's reason quotes. */
const TAIL_CHARS = 1500;

interface ProposalPush extends LandingPlace {
  taskBranch: string;
  /** The branch pushed to on the remote: `dex/<taskId>`. */
  proposedBranch: string;
}

type ProposalPushed = { status: 'pushed'; sha: string } | { status: 'failed'; reason: string };

/** What the merge-request description says. */
export interface ProposalText {
  key: string;
  taskId: string;
  title: string;
  summary?: string;
  remote: string;
  /** The branch the merge request targets. */
  targetBranch: string;
  proposedBranch: string;
  sha: string;
  /** The target's head the branch was finalized onto (verify passed on the merged tree). */
  targetHead: string;
  preExistingFailures?: string[];
  /** No test command was found for the task; this person let it through the `unverified` gate. */
  unverifiedApprovedBy?: string;
  /** The project's own checks besides its tests as they last ran: `lint passed · build failed (fails on the base too, not blocking)`. */
  checks?: string;
  /** A best-of-N task (docs/attempts.md): every attempt, and which one this branch is and why. */
  attempts?: AttemptRow[];
  chosen?: AttemptChoice;
  /** The issue the run came from: the description says `Fixes #N`, so the forge closes it with the merge. */
  fixes?: number;
  /** The issue a roadmap run came from (several tasks, several pull requests): the description says `Part of #N`, and dex closes it once all have landed. */
  partOf?: number;
  costUsd: number;
  tokens: TokenUsage;
}

interface LandCommandInput {
  key: string;
  command: string;
  repoPath: string;
  env: Record<string, string>;
}

type LandCommandOutcome = { status: 'ran'; lastLine: string } | { status: 'failed'; reason: string };

/** The merge request's description, in Markdown: the title, what the task did, verify and spending. */
export function proposalMarkdown(p: ProposalText): string {
  const verify = p.unverifiedApprovedBy
    ? [`- verify: **none found**: no test command ran on this change; ${p.unverifiedApprovedBy} let it through the \`unverified\` gate`]
    : [`- verify: passed on the merged tree (${p.remote}/${p.targetBranch} at ${p.targetHead.slice(0, 12)} merged in)`];
  if (p.preExistingFailures?.length) {
    verify.push(`- pre-existing failures (already failing on the base, not caused by this change):`, ...p.preExistingFailures.map((f) => `  - ${f}`));
  }
  if (p.checks) verify.push(`- checks: ${p.checks}`);
  if (p.attempts?.length && p.chosen) verify.push(`- ${attemptsHeadline(p.attempts, p.chosen)}`, '', attemptMarkdown(p.attempts, p.chosen));
  return [
    `# ${p.taskId}: ${p.title}`,
    '',
    p.summary?.trim() || '(the task left no summary)',
    '',
    '## Verify',
    '',
    ...verify,
    '',
    '## Cost',
    '',
    `- ${formatUsd(p.costUsd)} USD`,
    `- ${totalTokens(p.tokens)} tokens (input ${p.tokens.input}, output ${p.tokens.output}, cache read ${p.tokens.cacheRead}, cache write ${p.tokens.cacheWrite})`,
    '',
    `Branch \`${p.proposedBranch}\` at ${p.sha}, proposed by dex (landing ${p.key}).`,
    ...(p.fixes !== undefined ? ['', `Fixes #${p.fixes}`] : []),
    ...(p.partOf !== undefined ? ['', `Part of #${p.partOf}`] : []),
    '',
  ].join('\n');
}

/**
 * The store's artifact ids of a landing's description (per pushed commit) and landCommand outcome;
 * under the landing key, which starts with the roadmap's workflow id (core/run/ids.ts workflowKeyPrefix).
 */
const descriptionId = (key: string, sha: string) => `${key}/proposal/${sha}`;
const commandId = (key: string) => `${key}/land-command`;

export const createLandingBranchActivities = (deps: ActivityDeps) => heartbeatingWhileRunning({
  /**
   * Pushes the task branch's commit to `proposedBranch`, never forced. Idempotent: the branch
   * already there at this commit (a retry) or at an earlier one of it (an earlier attempt of this
   * landing, before a re-finalize: the task branch only grows) pushes fine. A branch that is not
   * this task's history (another run's, a person's) is refused: the landing waits at `merge`.
   */
  async pushProposal(input: ProposalPush): Promise<ProposalPushed> {
    const at = await landingRepository(input, deps.dexHome);
    const git = at.gitIn(at.dir);
    const sha = (await git.raw(['rev-parse', '--verify', `${at.taskRev(input.taskBranch)}^{commit}`])).trim();
    const ref = `refs/heads/${input.proposedBranch}`;
    const refused = await git.raw(['push', '--no-verify', at.remote, `${sha}:${ref}`]).then(() => undefined, (err: unknown) => err);
    if (!refused) return { status: 'pushed', sha };
    const there = (await git.raw(['ls-remote', at.remote, ref])).split(/\s/)[0];
    if (there === sha) return { status: 'pushed', sha };
    const why = refused instanceof Error ? refused.message.trim().split('\n').slice(-3).join(' ') : String(refused);
    return { status: 'failed', reason: `git push ${at.remote} ${input.proposedBranch} refused${there ? ` (it is at ${there.slice(0, 12)}, not this task's history: delete it, then approve)` : ''}: ${why}` };
  },

  /** Stores the description (once per landing and commit) and writes it to `<dexHome>/proposals/`; returns the file's path. */
  async describeProposal(input: ProposalText): Promise<{ descriptionPath: string }> {
    const id = descriptionId(input.key, input.sha);
    await deps.store.putArtifact(id, 'land-proposal', proposalMarkdown(input));
    const dir = join(deps.dexHome, 'proposals');
    mkdirSync(dir, { recursive: true });
    const descriptionPath = join(dir, `${safeName(input.key)}.md`);
    // From the store, so a retry writes what was stored first, not a second rendering.
    writeFileSync(descriptionPath, (await deps.store.getArtifact(id))!.content);
    return { descriptionPath };
  },

  /**
   * Runs the owner's landCommand on the host, outside the sandbox (dex.config.yaml is the
   * owner's, and protected), in the repository, without the model's credentials. Once per
   * landing: a success is stored and a retry returns it. A failure is an outcome (the `merge`
   * gate, with its output's tail), not an activity failure to retry.
   */
  async runLandCommand(input: LandCommandInput): Promise<LandCommandOutcome> {
    const done = await deps.store.getArtifact(commandId(input.key));
    if (done) return JSON.parse(done.content) as LandCommandOutcome;
    // stdout alone gives the recorded line (a URL); stderr is kept apart so a warning never becomes it.
    const { result, stderr } = await runWithStderrApart({
      command: input.command,
      cwd: input.repoPath,
      dir: join(deps.dexHome, 'proposals'),
      key: safeName(input.key),
      timeoutMs: LAND_COMMAND_TIMEOUT_MS,
      outputLimitBytes: 64 * 1024,
      env: input.env,
    });
    if (result.exitCode !== 0 || result.timedOut) {
      const how = result.timedOut ? `timed out after ${LAND_COMMAND_TIMEOUT_MS} ms` : result.exitCode === null ? `killed by ${result.killedBy}` : `exit code ${result.exitCode}`;
      const tail = `${result.output}${stderr}`.trim().slice(-TAIL_CHARS);
      return { status: 'failed', reason: `landCommand failed (${how})${tail ? `: ${tail}` : ''}` };
    }
    const lines = result.output.split('\n').map((l) => l.trim()).filter(Boolean);
    const outcome: LandCommandOutcome = { status: 'ran', lastLine: lines[lines.length - 1] ?? '' };
    await deps.store.putArtifact(commandId(input.key), 'land-command', JSON.stringify(outcome));
    return outcome;
  },
});
