import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { modelsForWeight } from '../../core/run/model-choice';
import { agentsForWeight } from '../../core/task/agent-engine';
import { repoNameOf, taskIdFromTitle } from '../../core/run/ids';
import { phasesFor } from '../../core/task/phases';
import { WEIGHTS, type Weight } from '../../core/task/weight';
import type { RoadmapInput } from '../../core/roadmap/roadmap-types';
import type { LlmSpec } from '../../core/run/run-types';
import type { TaskInput } from '../../core/task/task-types';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { fleetQueueOf } from '../../core/fleet/placement-types';
import { InvalidInput } from '../../core/run/invalid-input';
import { dexGitSync } from '../../host/git/dex-git';
import { loadDexConfig, type DexConfig } from '../config/config-file';
import { parseLlmSpec } from './llm-spec';
import { chooseSandbox } from '../run/sandbox-choice';
import type { Settings } from '../settings';
import { memoryOf } from '../config/memory-config';
import { checkClaudeCodeRun } from '../config/agent-config';
import { isAttemptCount, MAX_ATTEMPTS, withAttemptCount } from '../../core/task/attempts';

/** What a person asks for with `dex task`. */
interface TaskRequest {
  title: string;
  description?: string;
  repo?: string;
  weight?: string;
  llm?: string;
  /** `--attempts N`: best of N over the config's `attempts:` count (docs/attempts.md); 1 turns them off. */
  attempts?: string;
  /** `--unsafe-no-sandbox`: run the agent's commands unconfined. */
  unsafeNoSandbox?: boolean;
  /** `--repo` named a forge repository, checked, with its config as its default branch has it (client/fleet/). */
  forge?: { repo: ForgeRepository; config: DexConfig };
}

/** The trimmed output of git `args` in `cwd`, or undefined when git fails. */
function git(args: string[], cwd: string): string | undefined {
  try {
    return dexGitSync(cwd, args).trim();
  } catch {
    return undefined;
  }
}

/** The top folder of the git repository at `dir`, checked to exist and to have a commit. */
export function resolveRepository(dir: string): string {
  const path = resolve(dir);
  if (!existsSync(path)) throw new InvalidInput(`repository not found: ${path}`);
  if (!statSync(path).isDirectory()) throw new InvalidInput(`repository is not a folder: ${path}`);
  const top = git(['rev-parse', '--show-toplevel'], path);
  if (!top) throw new InvalidInput(`not a git repository: ${path}`);
  if (!git(['rev-parse', '--verify', 'HEAD'], top)) throw new InvalidInput(`the repository has no commit yet: ${top}`);
  return top;
}

/** What every task on `repoPath` takes from the config, `--llm` and this host: everything but the task itself. */
export function taskDefaultsFrom(
  config: DexConfig,
  llm: LlmSpec,
  repoPath: string,
  hostQueue: string,
  unsafeNoSandbox?: boolean,
): RoadmapInput['taskDefaults'] {
  const sandbox = chooseSandbox(config.sandbox, unsafeNoSandbox);
  checkClaudeCodeRun(config, sandbox.mode === 'off');
  return {
    repoPath,
    hostQueue,
    llm,
    models: llm.kind === 'anthropic' && llm.model ? { ...config.models, default: llm.model } : config.models,
    ...(config.thinking ? { thinking: config.thinking } : {}),
    ...(config.agents ? { agents: config.agents } : {}),
    ...(config.claude ? { claude: config.claude } : {}),
    ...(config.planner ? { planner: config.planner } : {}),
    maxTokens: config.maxTokens,
    verify: config.verify,
    ...(config.detectVerify ? { detectVerify: true } : {}),
    ...(config.verifyNoneFound ? { verifyNoneFound: true } : {}),
    checks: config.checks,
    maxIterations: config.maxIterations,
    maxRetries: config.maxRetries,
    gates: config.gates,
    toolLimits: config.tools,
    retryMap: config.retryMap,
    runaway: config.runaway,
    sandbox,
    ...(config.setup !== undefined ? { setup: config.setup } : {}),
    protectedPaths: config.protectedPaths,
    ...(memoryOf(config) ? { memory: memoryOf(config) } : {}),
    ...(config.attempts ? { attempts: config.attempts } : {}),
  };
}

/** `agents` as an input field, absent when no phase has an agent of its own. */
const agentsOf = (agents: TaskInput['agents']) => (agents ? { agents } : {});

/** `--attempts N` as a count, checked; undefined when not given. */
function attemptCountOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!isAttemptCount(n)) throw new InvalidInput(`--attempts must be a whole number from 1 (off) to ${MAX_ATTEMPTS}, not "${value}"`);
  return n;
}

/** The task's title, trimmed, once its title, weight and attempts are checked; throws InvalidInput. */
function checkedTitle(req: Pick<TaskRequest, 'title' | 'weight' | 'attempts'>): string {
  const title = req.title?.trim() ?? '';
  if (!title) throw new InvalidInput('the task title is empty');
  if (req.weight !== undefined && !(WEIGHTS as readonly string[]).includes(req.weight)) {
    throw new InvalidInput(`unknown --weight "${req.weight}": use ${WEIGHTS.join(', ')}`);
  }
  attemptCountOf(req.attempts);
  return title;
}

/** The checks of a task request that need no repository (its title, weight, attempts and `--llm`), for one whose repository is on a forge; throws InvalidInput. */
export function checkTaskRequest(req: Pick<TaskRequest, 'title' | 'weight' | 'attempts' | 'llm'>, env: NodeJS.ProcessEnv = process.env): void {
  checkedTitle(req);
  parseLlmSpec(req.llm, env);
}

/** Checks a task request and turns it into the workflow's input; throws InvalidInput before anything starts. */
export function buildTaskInput(req: TaskRequest, settings: Settings, env: NodeJS.ProcessEnv = process.env): { input: TaskInput; repoName: string } {
  const title = checkedTitle(req);
  const forge = req.forge;
  // A forge repository's task runs on any worker of the fleet, which mirrors it: its path there is its git URL (docs/fleet.md).
  const repoPath = forge ? forge.repo.gitUrl : resolveRepository(req.repo ?? process.cwd());
  const llm = parseLlmSpec(req.llm, env);
  const config = forge ? forge.config : loadDexConfig(repoPath);
  const { attempts: configured, ...defaults } = taskDefaultsFrom(config, llm, repoPath, settings.hostQueue, req.unsafeNoSandbox);
  const attempts = withAttemptCount(configured, attemptCountOf(req.attempts));
  return {
    repoName: forge ? forge.repo.repo : repoNameOf(repoPath),
    input: {
      ...defaults,
      ...(forge ? { repo: forge.repo, fleetQueue: fleetQueueOf(settings.taskQueue) } : {}),
      taskId: taskIdFromTitle(title),
      title,
      description: req.description?.trim() ?? '',
      phases: req.weight ? phasesFor({ weight: req.weight as Weight }, config.phases) : ['implement'],
      models: modelsForWeight(defaults.models, config.modelsByWeight, req.weight as Weight | undefined),
      ...agentsOf(agentsForWeight(defaults.agents, config.agentsByWeight, req.weight as Weight | undefined)),
      budget: config.budgets.task,
      // A single task is often asked to fix what is red: its base's failures count unless the repository says otherwise.
      verifyBaseline: config.verifyBaseline ?? false,
      ...(attempts ? { attempts } : {}),
    },
  };
}
