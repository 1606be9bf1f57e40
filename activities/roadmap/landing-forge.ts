// Landing through pull requests (docs/landing-through-prs.md): the forge activities the roadmap's
// landing calls (the ForgeActivities of core/roadmap/pull-request-types.ts), on the repository's
// host, with the forge's token from this worker's environment. Each is idempotent: opening finds
// the head's open pull request first, a merge of a merged one reports `merged`, a log read twice
// returns what was stored the first time. The waiting for CI is the workflow's (durable timers
// and signals); each activity here is a few requests, bounded (host/forge/github-forge.ts).

import { readFile } from 'node:fs/promises';
import type { ApplicationFailure } from '@temporalio/common';
import { FAILURE } from '../../core/run/failure-types';
import type { CheckLog, CheckState, CheckStatus, ChecksReport, ForgeActivities, PullRequestRef } from '../../core/roadmap/pull-request-types';
import { createRedactor } from '../../core/safety/redaction';
import type { ForgeCheckRun, ForgeFactory } from '../../host/forge/forge';
import { githubForge } from '../../host/forge/github-forge';
import { keptLog } from '../../host/forge/log-tail';
import { readGithubReview, replyInGithubThread } from '../../host/forge/github-reviews';
import { setGithubStatus } from '../../host/forge/github-status';
import { DEX_STATUS_CONTEXT } from '../../core/forge/dex-status';
import { upsertGithubIssueComment } from '../../host/forge/github-issues';
import { clipReview, type Review } from '../../core/forge/review';
import { secretValues } from '../../host/secrets/secret-values';
import type { ActivityDeps } from '../deps';
import { heartbeatingWhileRunning } from '../run/local-heartbeat';

/** How much of a check's log is kept: its tail (a failure is reported at the end). */
export const CHECK_LOG_BYTES = 64 * 1024;
/** How much of it the excerpt a person and the gate's reason see holds. */
const EXCERPT_LINES = 30;
const EXCERPT_CHARS = 3_000;

/** The store's id of a check run's log under a landing's key: a run re-run in place keeps its id, so its completion tells its logs apart. */
const checkLogId = (key: string, check: CheckStatus) => `${key}/ci-log/${check.id}${check.completedAt ? `@${check.completedAt}` : ''}`;

/** A check run's state for a landing: completed and good passes (skipped and neutral too), completed otherwise fails. */
function checkState(run: Pick<ForgeCheckRun, 'status' | 'conclusion'>): CheckState {
  if (run.status !== 'completed') return 'pending';
  return ['success', 'neutral', 'skipped'].includes(run.conclusion ?? '') ? 'passed' : 'failed';
}

const excerptOf = (log: string) => log.trimEnd().split('\n').slice(-EXCERPT_LINES).join('\n').slice(-EXCERPT_CHARS);

/** True for the failure GitHub gives a pull request opened a second time (a race with our own earlier attempt). */
const alreadyExists = (err: unknown) => (err as ApplicationFailure)?.type === FAILURE.ForgeRequestRefused && /already exists/i.test((err as Error).message);

export const createForgeActivities = (deps: ActivityDeps, forgeOf: ForgeFactory = githubForge) =>
  heartbeatingWhileRunning({
    /** The open pull request of `head` into `base`, opened with the description file's text when there is none. */
    async openPullRequest({ target, head, base, title, descriptionPath }): Promise<PullRequestRef> {
      const forge = await forgeOf(target);
      const open = await forge.findOpenPullRequest(head, base);
      if (open) return open;
      const body = await readFile(descriptionPath, 'utf8');
      try {
        return await forge.createPullRequest({ head, base, title, body });
      } catch (err) {
        const raced = alreadyExists(err) ? await forge.findOpenPullRequest(head, base) : undefined;
        if (raced) return raced;
        throw err;
      }
    },

    /**
     * The checks the landing waits for on `sha`: those configured, else the base branch's required
     * ones, else every check reported. One waited for and not reported yet is `missing` (pending).
     */
    async readChecks({ target, pr, sha, checks }): Promise<ChecksReport> {
      const forge = await forgeOf(target);
      // dex's own status says what the landing does: it is never a check the landing waits for.
      const runs = (await forge.listCheckRuns(sha)).filter((r) => r.name !== DEX_STATUS_CONTEXT);
      const wanted = checks?.length ? checks : await forge.requiredChecks((await forge.getPullRequest(pr)).base);
      const shown = wanted.length ? runs.filter((r) => wanted.includes(r.name)) : runs;
      return {
        sha,
        checks: shown.map((r): CheckStatus => ({
          name: r.name, state: checkState(r), id: r.id,
          ...(r.url ? { url: r.url } : {}),
          ...(r.startedAt ? { startedAt: r.startedAt } : {}),
          ...(r.completedAt ? { completedAt: r.completedAt } : {}),
          ...(r.rerunnable === false ? { rerunnable: false } : {}),
        })),
        missing: wanted.filter((name) => !runs.some((r) => r.name === name)),
      };
    },

    async rerunCheck({ target, checkId }): Promise<void> {
      await (await forgeOf(target)).rerunCheck(checkId);
    },

    /**
     * A check run's log: its last {@link CHECK_LOG_BYTES}, through the redaction step (with the
     * forge token's value as a known secret whatever its variable is called), kept in the store
     * once under the landing's key; returns its reference and last lines.
     */
    async readCheckLog({ target, check, key }): Promise<CheckLog> {
      const id = checkLogId(key, check);
      const kept = await deps.store.getArtifact(id);
      if (kept) return { name: check.name, ref: id, excerpt: excerptOf(kept.content) };
      const log = await (await forgeOf(target)).readCheckLog(check.id, CHECK_LOG_BYTES);
      const redactor = createRedactor(secretValues(process.env, [target.tokenEnv]));
      const text = redactor.redact(keptLog(log));
      await deps.store.putArtifact(id, 'ci-log', text);
      return { name: check.name, ref: id, excerpt: excerptOf(text) };
    },

    async mergePullRequest({ target, pr, sha, method, title }) {
      return (await forgeOf(target)).merge({ number: pr, sha, method, title });
    },

    async deletePullBranch({ target, branch }): Promise<void> {
      await (await forgeOf(target)).deleteBranch(branch);
    },

    async setDexStatus({ target, sha, status }): Promise<void> {
      await setGithubStatus(target, sha, status);
    },

    /** A person's review and its comments with their threads (docs/forge-triggers.md#reviews-answered-on-the-same-pr), cut to what a prompt quotes. */
    async readReview({ target, pr, reviewId }): Promise<Review> {
      return clipReview(await readGithubReview(target, pr, reviewId));
    },

    /** dex's reply in a review thread, or on the pull request itself (thread 0) for a review without line comments: once per marker. */
    async replyInThread({ target, pr, thread, body, marker }): Promise<{ url: string }> {
      return { url: thread ? await replyInGithubThread(target, pr, thread, body, marker) : await upsertGithubIssueComment(target, pr, marker, body) };
    },
  } satisfies ForgeActivities);
