import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MODEL } from '../../core/run/pricing';
import { DEFAULT_PHASES_BY_WEIGHT, DEFAULT_RETRY_MAP, DEFAULT_RUNAWAY } from '../../core/task/phases';
import { WEIGHTS, type Weight } from '../../core/task/weight';
import type { Agent, ClaudeSetup } from '../../core/task/agent-engine';
import { parseAgents, parseClaudeSetup } from './agent-config';
import type { Budget, GateConfig } from '../../core/run/run-types';
import type { RunawayLimits, ThinkingConfig, ToolLimits } from '../../core/task/task-types';
import { parseLandConfig, type LandSettings } from './land-config';
import { tokenStaysWithWorker } from './pull-request-config';
import { parseMemoryConfig } from './memory-config';
import type { MemoryRef } from '../../core/run/run-memory';
import { modelGate, parseModels, parsePlanner, parseThinking } from './model-config';
import { ALWAYS_PROTECTED_PATHS, DEFAULT_SANDBOX, type SandboxPolicy } from '../../core/safety/sandbox-policy';
import { InvalidInput } from '../../core/run/invalid-input';
import { parseYamlInput } from '../../core/parsing/yaml-input';
import { parseProtectedPaths, parseSandbox } from './sandbox-config';
import { DURATION, isRecord, knownKeys } from './config-section';
import { parseSetup } from './setup-config';
import { parseChecksConfig } from './checks-config';
import { parseAttemptsConfig } from './attempts-config';
import type { AttemptsConfig } from '../../core/task/attempts';
import type { ChecksConfig } from '../../core/task/project-checks';
import { detectTestCommands } from '../../host/dependencies/test-command';
import type { SetupConfig } from '../../core/run/setup-types';

/** The settings a repository's optional `dex.config.yaml` can give (docs/interfaces.md#files). */
export interface DexConfig {
  /** Commands that must pass for a phase to count as done. @default [] and `detectVerify` */
  verify: string[];
  /** No `verify:`: setup picks the project's test commands from each worktree (docs/real-repositories.md#verify-without-configuration). */
  detectVerify: boolean;
  /** `setup: false` and no `verify:`: the checkout has no test command dex knows (docs/real-repositories.md#no-test-command-found). */
  verifyNoneFound?: boolean;
  /** The project's own checks besides its tests (docs/real-repositories.md#checks-besides-tests). @default {} (every one detected) */
  checks: ChecksConfig;
  /** Model per phase, `default` for the rest. @default { default: "claude-sonnet-4-6" } */
  models: Record<string, string>;
  /** Models per weight × phase (`models.large.review`), over `models`. */
  modelsByWeight?: Partial<Record<Weight, Record<string, string>>>;
  /** Agent per phase, `default` for the rest (docs/claude-code.md). @default dex's own in every phase */
  agents?: Record<string, Agent>;
  /** Agents per weight × phase (`agent.large.implement`), over `agents`. */
  agentsByWeight?: Partial<Record<Weight, Record<string, Agent>>>;
  /** Which of the person's Claude Code set-up a Claude Code session sees. @default the repository's only */
  claude?: ClaudeSetup;
  /** Extended thinking for some phases. @default off */
  thinking?: ThinkingConfig;
  /** A cheap model that picks the type of a task without one, and re-plans on `escalate`. @default off */
  planner?: { model: string };
  /** @default 20 */
  maxIterations: number;
  /** Retries of failed checks, and separately of rejects that ask for one. @default 3 */
  maxRetries: number;
  /** @default 8192 */
  maxTokens: number;
  gates: { beforePhase?: GateConfig; afterVerify?: GateConfig };
  tools: ToolLimits;
  /** Phases per weight. @default trivial: implement; small: implement, test; medium: spec, implement, review, test; large: research … docs */
  phases: Record<Weight, string[]>;
  /** Where a failed phase goes back to. @default test/review/validate → implement, design → spec */
  retryMap: Record<string, string>;
  /** Spending limits per task and per run. */
  budgets: { task?: Budget; run?: Budget };
  runaway: RunawayLimits;
  /** Roadmap tasks running at once. @default 2 */
  maxParallel: number;
  /** A roadmap run continues as new after this many tasks. @default 25 */
  continueAsNewAfterTasks: number;
  /** How the agent's commands are confined (docs/security.md). @default bubblewrap, no network */
  sandbox: SandboxPolicy;
  /** How each worktree gets its dependencies (docs/real-repositories.md); `false`: no setup. @default detected from the lockfiles */
  setup?: SetupConfig | false;
  /** Globs whose changes wait for a person before they are committed. @default ["dex.config.yaml"] */
  protectedPaths: string[];
  /** How a roadmap's tasks land: finalize attempts, a remote to push to, pull requests (client/config/land-config.ts). */
  land?: LandSettings;
  /** Run verify on the base commit first; its failures do not block a task. @default true in a roadmap, false for `dex task` */
  verifyBaseline?: boolean;
  /** Tokens of run and project memory in first prompts (docs/roadmaps.md#memory); `false`: none. @default client/config/memory-config.ts */
  memory?: MemoryRef | false;
  /** Best of N (docs/attempts.md): each task runs as this many attempts at once, the best landing. @default off */
  attempts?: AttemptsConfig;
}

const FILE = 'dex.config.yaml';
const TOP_KEYS = [
  'verify', 'models', 'maxIterations', 'maxRetries', 'maxTokens', 'gates', 'tools',
  'phases', 'retryMap', 'budgets', 'runaway', 'maxParallel', 'continueAsNewAfterTasks', 'sandbox', 'protectedPaths',
  'land', 'landCommand', 'verifyBaseline', 'thinking', 'planner', 'memory', 'setup', 'agent', 'claude', 'checks', 'attempts',
];
const BUDGET_KEYS = ['usd', 'tokens'];
const GATE_NAMES = ['beforePhase', 'afterVerify'];
const GATE_KEYS = ['deadline', 'defaultAction', 'by', 'model', 'instructions', 'onModelError'];
const TOOL_KEYS = ['commandTimeoutMs', 'outputLimitBytes'];

function fail(key: string, problem: string): never {
  throw new InvalidInput(`${FILE}: "${key}" ${problem}`);
}

function checkKeys(obj: Record<string, unknown>, allowed: readonly string[], prefix: string): void {
  knownKeys(obj, allowed, prefix, fail);
}

function positiveInt(v: unknown, key: string, allowZero = false): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < (allowZero ? 0 : 1)) {
    fail(key, `must be a ${allowZero ? 'non-negative' : 'positive'} whole number`);
  }
  return v;
}

function gate(v: unknown, key: string): GateConfig {
  if (v === true) return {};
  if (!isRecord(v)) fail(key, 'must be true or a map with deadline and defaultAction');
  checkKeys(v, GATE_KEYS, `${key}.`);
  if (v.deadline !== undefined && (typeof v.deadline !== 'string' || !DURATION.test(v.deadline))) {
    fail(`${key}.deadline`, 'must be a duration such as "30m" or "24h"');
  }
  if (v.defaultAction !== undefined && v.defaultAction !== 'approve' && v.defaultAction !== 'reject') {
    fail(`${key}.defaultAction`, 'must be "approve" or "reject"');
  }
  const person = { deadline: v.deadline as string | undefined, defaultAction: v.defaultAction as GateConfig['defaultAction'] };
  const modelKeys = ['model', 'instructions', 'onModelError'].filter((k) => v[k] !== undefined);
  if (v.by !== 'model' && modelKeys.length) fail(`${key}.${modelKeys[0]}`, 'needs `by: model` (a gate answered by a model)');
  return v.by === undefined || v.by === 'person' ? (v.by ? { ...person, by: 'person' } : person) : { ...person, ...modelGate(v, key, fail) };
}

/** Parses and checks a config document; unknown keys and wrong types are input errors naming the key. */
export function parseDexConfig(text: string, repoPath: string): DexConfig {
  const raw = parseYamlInput(text, FILE).value ?? {};
  if (!isRecord(raw)) throw new InvalidInput(`${FILE}: must be a map of settings`);
  checkKeys(raw, TOP_KEYS, '');

  const config: DexConfig = {
    // Picked by the host from the set-up worktree, where the tests will run (a venv's python, pnpm or npm).
    verify: [],
    detectVerify: raw.verify === undefined,
    checks: parseChecksConfig(raw.checks, fail),
    models: { default: DEFAULT_MODEL },
    maxIterations: 20,
    maxRetries: 3,
    maxTokens: 8192,
    gates: {},
    tools: { commandTimeoutMs: 120_000, outputLimitBytes: 16_384 },
    phases: { ...DEFAULT_PHASES_BY_WEIGHT },
    retryMap: { ...DEFAULT_RETRY_MAP },
    budgets: {},
    runaway: { ...DEFAULT_RUNAWAY },
    maxParallel: 2,
    continueAsNewAfterTasks: 25,
    sandbox: { ...DEFAULT_SANDBOX, limits: { ...DEFAULT_SANDBOX.limits } },
    protectedPaths: [...ALWAYS_PROTECTED_PATHS],
  };
  if (raw.verify !== undefined) {
    const v = typeof raw.verify === 'string' ? [raw.verify] : raw.verify;
    if (!Array.isArray(v) || !v.every((c) => typeof c === 'string' && c.trim())) fail('verify', 'must be a command or a list of commands');
    config.verify = v as string[];
  }
  if (raw.models !== undefined) {
    const parsed = parseModels(raw.models, fail);
    config.models = { ...config.models, ...parsed.models };
    config.modelsByWeight = parsed.modelsByWeight;
  }
  if (raw.agent !== undefined) {
    const parsed = parseAgents(raw.agent, fail);
    config.agents = parsed.agents;
    config.agentsByWeight = parsed.agentsByWeight;
  }
  if (raw.claude !== undefined) config.claude = parseClaudeSetup(raw.claude, fail);
  if (raw.thinking !== undefined) config.thinking = parseThinking(raw.thinking, fail);
  if (raw.planner !== undefined) config.planner = parsePlanner(raw.planner, fail);
  if (raw.maxIterations !== undefined) config.maxIterations = positiveInt(raw.maxIterations, 'maxIterations');
  if (raw.maxRetries !== undefined) config.maxRetries = positiveInt(raw.maxRetries, 'maxRetries', true);
  if (raw.maxTokens !== undefined) config.maxTokens = positiveInt(raw.maxTokens, 'maxTokens');
  if (raw.gates !== undefined) {
    if (!isRecord(raw.gates)) fail('gates', 'must be a map');
    checkKeys(raw.gates, GATE_NAMES, 'gates.');
    for (const name of GATE_NAMES) {
      if (raw.gates[name] !== undefined && raw.gates[name] !== false) {
        config.gates[name as keyof DexConfig['gates']] = gate(raw.gates[name], `gates.${name}`);
      }
    }
  }
  if (raw.tools !== undefined) {
    if (!isRecord(raw.tools)) fail('tools', 'must be a map');
    checkKeys(raw.tools, TOOL_KEYS, 'tools.');
    for (const key of TOOL_KEYS) {
      if (raw.tools[key] !== undefined) config.tools[key as keyof ToolLimits] = positiveInt(raw.tools[key], `tools.${key}`);
    }
  }
  parseRoadmapSettings(raw, config);
  if (raw.sandbox !== undefined) config.sandbox = parseSandbox(raw.sandbox, fail);
  if (raw.setup !== undefined) config.setup = parseSetup(raw.setup, fail);
  // No setup runs to pick the commands from the worktree: they are picked from the checkout, as they would be there.
  if (config.setup === false && config.detectVerify) {
    config.verify = detectTestCommands(repoPath);
    config.detectVerify = false;
    if (!config.verify.length) config.verifyNoneFound = true;
  }
  if (raw.protectedPaths !== undefined) config.protectedPaths = parseProtectedPaths(raw.protectedPaths, fail);
  config.land = parseLandConfig(raw.land, raw.landCommand, fail);
  if (config.land?.pr) tokenStaysWithWorker(config.land.pr.tokenEnv, { 'sandbox.env': config.sandbox.env, 'setup.env': config.setup ? config.setup.env : undefined }, fail);
  if (raw.memory !== undefined) config.memory = parseMemoryConfig(raw.memory, fail);
  const attempts = parseAttemptsConfig(raw.attempts, fail);
  if (attempts) config.attempts = attempts;
  if (raw.verifyBaseline !== undefined) {
    if (typeof raw.verifyBaseline !== 'boolean') fail('verifyBaseline', 'must be true or false');
    config.verifyBaseline = raw.verifyBaseline;
  }
  return config;
}

function stringMap(v: unknown, key: string): Record<string, string> {
  if (!isRecord(v) || !Object.values(v).every((x) => typeof x === 'string' && x)) fail(key, 'must be a map of phase to phase');
  return v as Record<string, string>;
}

function budget(v: unknown, key: string): Budget {
  if (!isRecord(v)) fail(key, 'must be a map with usd and/or tokens');
  checkKeys(v, BUDGET_KEYS, `${key}.`);
  if (v.usd !== undefined && !(typeof v.usd === 'number' && v.usd > 0)) fail(`${key}.usd`, 'must be a positive number');
  return { usd: v.usd as number | undefined, tokens: v.tokens === undefined ? undefined : positiveInt(v.tokens, `${key}.tokens`) };
}

/** The settings that shape roadmaps: phases, the retry map, budgets, runaway limits, parallelism. */
function parseRoadmapSettings(raw: Record<string, unknown>, config: DexConfig): void {
  if (raw.phases !== undefined) {
    if (!isRecord(raw.phases)) fail('phases', 'must be a map of weight to a list of phases');
    checkKeys(raw.phases, [...WEIGHTS], 'phases.');
    for (const [weight, list] of Object.entries(raw.phases)) {
      if (!Array.isArray(list) || !list.length || !list.every((p) => typeof p === 'string' && p)) fail(`phases.${weight}`, 'must be a list of phase names');
      config.phases[weight as Weight] = list as string[];
    }
  }
  if (raw.retryMap !== undefined) config.retryMap = stringMap(raw.retryMap, 'retryMap');
  if (raw.budgets !== undefined) {
    if (!isRecord(raw.budgets)) fail('budgets', 'must be a map with task and/or run');
    checkKeys(raw.budgets, ['task', 'run'], 'budgets.');
    if (raw.budgets.task !== undefined) config.budgets.task = budget(raw.budgets.task, 'budgets.task');
    if (raw.budgets.run !== undefined) config.budgets.run = budget(raw.budgets.run, 'budgets.run');
  }
  if (raw.runaway !== undefined) {
    if (!isRecord(raw.runaway)) fail('runaway', 'must be a map with sameFailure and/or noChangeTurns');
    checkKeys(raw.runaway, ['sameFailure', 'noChangeTurns'], 'runaway.');
    if (raw.runaway.sameFailure !== undefined) config.runaway.sameFailure = positiveInt(raw.runaway.sameFailure, 'runaway.sameFailure');
    if (raw.runaway.noChangeTurns !== undefined) config.runaway.noChangeTurns = positiveInt(raw.runaway.noChangeTurns, 'runaway.noChangeTurns');
  }
  if (raw.maxParallel !== undefined) config.maxParallel = positiveInt(raw.maxParallel, 'maxParallel');
  if (raw.continueAsNewAfterTasks !== undefined) config.continueAsNewAfterTasks = positiveInt(raw.continueAsNewAfterTasks, 'continueAsNewAfterTasks');
}

/** Reads `dex.config.yaml` at the repository root, or the defaults when there is none. */
export function loadDexConfig(repoPath: string): DexConfig {
  const path = join(repoPath, FILE);
  return parseDexConfig(existsSync(path) ? readFileSync(path, 'utf8') : '', repoPath);
}
