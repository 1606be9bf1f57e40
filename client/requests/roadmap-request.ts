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
import { webUiLink } from '../web-ui-links';
import { pullRequestLanding } from '../config/pull-request-config';
import { parseLlmSpec } from './llm-spec';
import type { Settings } from '../settings';
import { resolveRepository, taskDefaultsFrom } from './task-request';
import type { DexConfig } from '../config/config-file';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { fleetQueueOf, fleetWorkQueueOf } from '../../core/fleet/placement-types';
import { forgeRoadmapLand, type ForgeRoadmap } from '../fleet/forge-roadmap-source';

/** What a person asks for with `dex run`. */
interface RoadmapRequest {
  roadmap: string;
  repo?: string;
  llm?: string;
  /** `--unsafe-no-sandbox`: run the agent's commands unconfined. */
  unsafeNoSandbox?: boolean;
  /** `--max-tasks N` as typed: land at most N tasks in this run (docs/roadmaps.md#landing-part-of-a-roadmap). */
  maxTasks?: string;
  /** `--repo` named a forge repository: its roadmap and config as its default branch has them (client/fleet/forge-roadmap-source.ts). */
  forge?: ForgeRoadmap;
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

/** The checks of a roadmap request that need no repository (`--llm`, `--max-tasks`), for one on a forge, made before its mirror is; throws InvalidInput. */
export function checkRoadmapRequest(req: Pick<RoadmapRequest, 'llm' | 'maxTasks'>, env: NodeJS.ProcessEnv = process.env): void {
  checkedMaxTasks(req.maxTasks);
  parseLlmSpec(req.llm, env);
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
  const source = req.forge ? forgeSource(req.forge, settings, req.unsafeNoSandbox) : localSource(req);
  const { repoPath, roadmapFile, text, config, baseBranch } = source;
  const tasks = req.forge?.tasks ?? parseRoadmap(text, roadmapFile);
  for (const task of tasks) {
    try {
      phasesFor(task, config.phases);
    } catch (err) {
      throw new InvalidInput(`${roadmapFile}: task ${task.id}: ${(err as Error).message}`);
    }
  }
  const llm = parseLlmSpec(req.llm, env);
  const repoName = req.forge ? req.forge.repo.repo : repoNameOf(repoPath);
  const roadmapHash = createHash('sha256').update(`${repoPath}\n${roadmapFile}\n${text}`).digest('hex').slice(0, 8);
  const taskDefaults = { ...taskDefaultsFrom(config, llm, repoPath, source.hostQueue ?? settings.hostQueue, req.unsafeNoSandbox), ...source.fleet };
  const land = source.land ?? (config.land ? checkedLand(config.land, repoPath, env, taskDefaults.sandbox?.mode === 'off', req.pullRequest) : undefined);
  const workflowId = roadmapWorkflowId(repoName, roadmapHash);
  return {
    workflowId,
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
      ...(land ? { land } : {}),
      ...(maxTasks !== undefined ? { maxTasks } : {}),
      ...(req.forge?.tasks ? { plan: req.forge.tasks } : {}),
      ...forgeWebUi(land, settings, workflowId, env),
    },
  };
}

/** The run's Web UI page for what dex writes on the forge, when the roadmap lands through pull requests and TEMPORAL_UI_URL names the UI (a forge's people cannot open dex's embedded one). */
export function forgeWebUi(land: LandConfig | undefined, settings: Settings, workflowId: string, env: NodeJS.ProcessEnv): { webUi?: string } {
  const page = land?.pr && env.TEMPORAL_UI_URL ? webUiLink(settings, workflowId, env) : undefined;
  return page ? { webUi: page } : {};
}

/** Where a roadmap comes from and what it runs on: a checkout's, or (fleet) a forge repository's. */
interface RoadmapSource {
  repoPath: string;
  roadmapFile: string;
  text: string;
  config: DexConfig;
  baseBranch: string;
  /** A forge roadmap: its own activities on the fleet's shared queue, its tasks on the fleet, its landing through pull requests. */
  hostQueue?: string;
  fleet?: { repo: ForgeRepository; fleetQueue: string };
  land?: LandConfig;
}

/** A forge repository's roadmap: the tasks run on the fleet and land through pull requests there (docs/fleet.md#a-roadmap-on-a-forge-repository). */
function forgeSource(forge: ForgeRoadmap, settings: Settings, unsafeNoSandbox?: boolean): RoadmapSource {
  const { repo, roadmapFile, text, config, baseBranch } = forge;
  const land = forgeRoadmapLand(config.land, repo, unsafeNoSandbox === true);
  const fleet = { repo, fleetQueue: fleetQueueOf(settings.taskQueue) };
  return { repoPath: repo.gitUrl, roadmapFile, text, config, baseBranch, hostQueue: fleetWorkQueueOf(settings.taskQueue), fleet, land };
}

/** A roadmap in a checkout on this host; its file, the repository and its branch checked. */
function localSource(req: RoadmapRequest): RoadmapSource {
  const file = resolve(req.roadmap);
  if (!existsSync(file)) throw new InvalidInput(`roadmap not found: ${file}`);
  const repoPath = resolveRepository(req.repo ?? dirname(file));
  const roadmapFile = relative(repoPath, file);
  if (roadmapFile.startsWith('..')) throw new InvalidInput(`the roadmap ${file} is not inside the repository ${repoPath}`);
  const text = readFileSync(file, 'utf8');
  const config = loadDexConfig(repoPath);
  const baseBranch = dexGitSync(repoPath, ['rev-parse', '--abbrev-ref', 'HEAD']).trim();
  if (baseBranch === 'HEAD') throw new InvalidInput(`the repository ${repoPath} is not on a branch: check out the branch tasks should land on`);
  return { repoPath, roadmapFile, text, config, baseBranch };
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
