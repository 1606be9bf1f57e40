import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { repoNameOf, roadmapWorkflowId } from '../../core/run/ids';
import { phasesFor } from '../../core/task/phases';
import { parseRoadmap, type RoadmapTask } from '../../core/roadmap/roadmap';
import type { LandConfig, RoadmapInput } from '../../core/roadmap/roadmap-types';
import type { PullRequestLanding } from '../../core/roadmap/pull-request-types';
import { InvalidInput } from '../../core/run/invalid-input';
import { dexGitSync } from '../../host/git/dex-git';
import { loadDexConfig } from '../config/config-file';
import type { LandSettings } from '../config/land-config';
import { pullRequestLanding } from '../config/pull-request-config';
import { parseLlmSpec } from './llm-spec';
import type { Settings } from '../settings';
import { resolveRepository, taskDefaultsFrom } from './task-request';

/** What a person asks for with `dex run`. */
interface RoadmapRequest {
  roadmap: string;
  repo?: string;
  llm?: string;
  /** `--unsafe-no-sandbox`: run the agent's commands unconfined. */
  unsafeNoSandbox?: boolean;
  /** `--max-tasks N` as typed: land at most N tasks in this run (docs/roadmaps.md#landing-part-of-a-roadmap). */
  maxTasks?: string;
  /** `dex replay-test` of a landing through pull requests: the landing the recording had, its forge played back (no token needed). */
  pullRequest?: PullRequestLanding;
}

/** `--max-tasks N`: a whole number of 1 or more, else an input error (exit 2) before anything starts. */
function checkedMaxTasks(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidInput(`--max-tasks must be a whole number of 1 or more, not "${text}"`);
  return n;
}

/** A checked roadmap run: the workflow's input, its id and its tasks. */
interface CheckedRoadmap {
  input: RoadmapInput;
  workflowId: string;
  tasks: RoadmapTask[];
}

/**
 * Checks a roadmap request and turns it into the workflow's input; throws InvalidInput (exit 2)
 * before anything starts: a missing file, no tasks, a duplicate id, an unknown dependency or a
 * cycle (naming the ids), an unknown task type, a bad config, `--llm` or `--max-tasks`.
 */
export function buildRoadmapInput(req: RoadmapRequest, settings: Settings, env: NodeJS.ProcessEnv = process.env): CheckedRoadmap {
  const maxTasks = checkedMaxTasks(req.maxTasks);
  const file = resolve(req.roadmap);
  if (!existsSync(file)) throw new InvalidInput(`roadmap not found: ${file}`);
  const repoPath = resolveRepository(req.repo ?? dirname(file));
  const roadmapFile = relative(repoPath, file);
  if (roadmapFile.startsWith('..')) throw new InvalidInput(`the roadmap ${file} is not inside the repository ${repoPath}`);
  const text = readFileSync(file, 'utf8');
  const tasks = parseRoadmap(text, roadmapFile);
  const config = loadDexConfig(repoPath);
  for (const task of tasks) {
    try {
      phasesFor(task, config.phases);
    } catch (err) {
      throw new InvalidInput(`${roadmapFile}: task ${task.id}: ${(err as Error).message}`);
    }
  }
  const baseBranch = dexGitSync(repoPath, ['rev-parse', '--abbrev-ref', 'HEAD']).trim();
  if (baseBranch === 'HEAD') throw new InvalidInput(`the repository ${repoPath} is not on a branch: check out the branch tasks should land on`);
  const llm = parseLlmSpec(req.llm, env);
  const repoName = repoNameOf(repoPath);
  const roadmapHash = createHash('sha256').update(`${repoPath}\n${roadmapFile}\n${text}`).digest('hex').slice(0, 8);
  const taskDefaults = taskDefaultsFrom(config, llm, repoPath, settings.hostQueue, req.unsafeNoSandbox);
  return {
    workflowId: roadmapWorkflowId(repoName, roadmapHash),
    tasks,
    input: {
      repoPath,
      roadmapFile,
      repoName,
      roadmapHash,
      baseBranch,
      // A roadmap's tasks are judged by what they break, not by what was red before (docs/roadmaps.md#baseline-aware-verify).
      taskDefaults: { ...taskDefaults, verifyBaseline: config.verifyBaseline ?? true },
      phasesByWeight: config.phases,
      ...(config.modelsByWeight ? { modelsByWeight: config.modelsByWeight } : {}),
      ...(config.agentsByWeight && Object.keys(config.agentsByWeight).length ? { agentsByWeight: config.agentsByWeight } : {}),
      maxParallel: config.maxParallel,
      continueAsNewAfterTasks: config.continueAsNewAfterTasks,
      taskBudget: config.budgets.task,
      runBudget: config.budgets.run,
      ...(config.land ? { land: checkedLand(config.land, repoPath, env, taskDefaults.sandbox?.mode === 'off', req.pullRequest) } : {}),
      ...(maxTasks !== undefined ? { maxTasks } : {}),
    },
  };
}

/**
 * `land:` with its remote checked: a remote the repository does not configure is bad input (exit 2);
 * in `pr` mode the remote's URL names the repository on the forge, and the forge token must be set
 * (docs/landing-through-prs.md#configuration).
 */
function checkedLand(land: LandSettings, repoPath: string, env: NodeJS.ProcessEnv, unconfined: boolean, replayed?: PullRequestLanding): LandConfig {
  if (land.remote && !dexGitSync(repoPath, ['remote']).split('\n').includes(land.remote)) {
    throw new InvalidInput(`dex.config.yaml: land.remote: the repository has no remote "${land.remote}" (git remote add ${land.remote} URL)`);
  }
  const { pr, ...rest } = land;
  if (!pr || !land.remote) return rest;
  // Unconfined, the agent's commands get the worker's environment: the forge token with it (docs/landing-through-prs.md#the-forge-token).
  if (unconfined) throw new InvalidInput(`land.mode pr needs the sandbox: without it the agent's commands would see ${pr.tokenEnv}, the forge token`);
  // Its forge played back and its remote a bare repository of the copy's: no forge's CA to trust.
  if (replayed) return { ...rest, pr: { ...replayed, caFile: undefined } };
  return { ...rest, pr: pullRequestLanding(pr, land.remote, dexGitSync(repoPath, ['remote', 'get-url', land.remote]).trim(), env) };
}
