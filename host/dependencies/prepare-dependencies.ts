import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_SANDBOX, type SandboxPolicy } from '../../core/safety/sandbox-policy';
import type { SetupConfig, SetupStep } from '../../core/run/setup-types';
import { runAgentCommand } from '../sandbox/run-agent-command';
import { nodeInstallPrefix } from '../sandbox/bwrap-args';
import { SANDBOX_PATH } from '../sandbox/sandbox-env';
import type { ShellCommandOptions, ShellCommandResult } from '../shell/shell-command';
import { copyTree, dependencyKey, inputContents, type DependencyCache } from './dependency-cache';
import { DOWNLOADS_INSIDE, type EcosystemPlan, type HostToolchains } from './ecosystem-plan';
import { detectEcosystems, withToolchains } from './ecosystems';
import { hostToolchains } from './host-toolchains';
import { binPaths, inWorktree, readSetupState, writeSetupState, type SetupState } from './setup-state';
import { copyOwnerFiles } from './owner-files';
import { installFailed, SetupFailed } from './setup-failed';
import { ownerHasSame } from './owner-install';
import { setupTrust } from '../sandbox/machine-trust';
import { withOwnerVersions } from './python/python-owner-versions';
import { removeTree } from '../worktree/remove-tree';
import { NODE_ECOSYSTEMS, projectNode } from './node/node-engines';
import { installRetry, recordedRetry } from './install-retry';

/** What setting up one worktree needs. */
interface PrepareRequest {
  /** The worktree (or baseline checkout) to make ready. */
  worktree: string;
  /** The owner's checkout: where `setup.copy` files come from, and installed dependencies that may be reused. */
  ownerDir?: string;
  config?: SetupConfig;
  sandbox?: SandboxPolicy;
  cache: DependencyCache;
  /** The task changed the worktree's manifests since its last setup: run each plan's update command. */
  update?: boolean;
  /** Host folder of setup's download caches (npm's, pip's), kept between installs. */
  downloads: string;
  /** Limits and heartbeats of each install command. */
  command: Omit<ShellCommandOptions, 'outputLimitBytes'>;
  /**
   * Told what setup waits for (another worker's install of the same key) on each look while it
   * waits, and undefined when the wait ends. @default a heartbeat through `command.onProgress`
   */
  onWait?: (line?: string) => void;
}


/** What a setup did: its steps, the files it copied, and every command's output for the report. */
interface PrepareOutcome {
  steps: SetupStep[];
  copied: string[];
  report: string;
}

/** What tells each package manager there is no network (and no point retrying). */
const OFFLINE_ENV: Record<string, string> = {
  npm_config_offline: 'true',
  npm_config_fetch_retries: '0',
  PIP_RETRIES: '0',
  PIP_TIMEOUT: '5',
  UV_OFFLINE: '1',
  GOPROXY: 'off',
  CARGO_NET_OFFLINE: 'true',
};

/**
 * The least address space each install process gets, in MiB, whatever the config gives the
 * agent's commands. Installers reserve far more than they use: uv aborts (exit 134) after
 * installing a 32-package lock under 4 GiB, and passes under 8 GiB (docs/real-repositories.md#what-runs-with-network). The
 * limit bounds reservations, not memory in use; installs are bounded by their time as well.
 */
const SETUP_ADDRESS_SPACE_MB = 16 * 1024;

/** Bytes of each install command's output kept for the report. */
const SETUP_OUTPUT_LIMIT = 64 * 1024;

/**
 * How much longer than one install command may take a worker waits for another's install of the
 * same key: the holder's install is killed at that limit, and storing it takes less than this.
 */
const FILL_WAIT_MARGIN_MS = 5 * 60_000;

const versions = new Map<string, string>();
let home: string | undefined;

/** An empty home for the version commands (npm writes its logs there), removed when the process exits. */
function scratchHome(): string {
  if (!home) {
    const made = mkdtempSync(join(tmpdir(), 'dex-toolchain-home-'));
    home = made;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  return home;
}

/** The output of `command` run as the sandbox would find it (its PATH), cached per process; empty when it fails. */
function toolchainVersion(command: string, binDirs: string[]): string {
  const prefix = nodeInstallPrefix();
  const path = [...binDirs, ...(prefix ? [join(prefix, 'bin')] : []), SANDBOX_PATH].join(':');
  const id = `${path}\0${command}`;
  if (!versions.has(id)) {
    let out = '';
    try {
      out = execFileSync('/bin/sh', ['-c', command], { env: { PATH: path, HOME: scratchHome() }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 }).trim();
    } catch {
      // A toolchain that is missing keys as missing; the install then says what is wrong.
    }
    versions.set(id, out);
  }
  return versions.get(id)!;
}

/** The config's own commands as one plan: cached when it names the folders they fill. */
function configuredPlan(config: SetupConfig, worktree: string): EcosystemPlan {
  const outputs = config.cache ?? [];
  return {
    ecosystem: 'commands',
    command: config.commands!.join(' && '),
    inputs: config.inputs ?? [],
    outputs,
    hosts: [],
    toolchain: [],
    setupEnv: {},
    commandEnv: outputs.includes('.venv') ? { VIRTUAL_ENV: '{worktree}/.venv' } : {},
    binDirs: ['node_modules/.bin', '.venv/bin'].filter((bin) => outputs.includes(bin.split('/')[0]) || existsSync(join(worktree, bin))),
    toolchainPaths: [],
  };
}

/**
 * The plans of `worktree`: the config's commands, or what detection finds (`found`, when the
 * caller has detected already); each with the owner's toolchains for it.
 */
export function plansFor(worktree: string, config: SetupConfig | undefined, toolchains: HostToolchains, found?: EcosystemPlan[]): EcosystemPlan[] {
  const plans = config?.commands?.length ? [configuredPlan(config, worktree)] : (found ?? detectEcosystems(worktree));
  return plans.map((plan) => withToolchains(plan, toolchains));
}

/**
 * The owner's toolchains for the worktree's ecosystems: those its setup found, or found now in
 * the owner's checkout (docs/real-repositories.md#toolchains), never by running what the agent
 * may have written in the worktree (a `rust-toolchain.toml` naming a path) outside the sandbox.
 */
function toolchainsOf(worktree: string, ownerDir: string | undefined, ecosystems: string[]): HostToolchains {
  const recorded = readSetupState(worktree)?.toolchains ?? {};
  // An ecosystem the task added (a Cargo.toml), or a worktree set up before toolchains were
  // recorded: without the owner's checkout, the owner's defaults, found outside any project.
  return { ...hostToolchains(ownerDir ?? tmpdir(), ecosystems, Object.keys(recorded) as (keyof HostToolchains)[]), ...recorded };
}

/** The cache key of `plan` in `worktree` as it is now; empty for commands that cache nothing. */
function planKey(plan: EcosystemPlan, worktree: string): string {
  if (!plan.outputs.length) return '';
  const toolchain = plan.toolchain.map((command) => toolchainVersion(command, binPaths(plan.binDirs, worktree).filter((d) => !d.startsWith(worktree))));
  return dependencyKey({ ecosystem: plan.ecosystem, command: plan.command, inputs: inputContents(worktree, plan.inputs), toolchain });
}

/**
 * Makes `request.worktree` ready to build and test (docs/real-repositories.md): copies the
 * config's files from the owner's checkout, then for each ecosystem restores its dependencies
 * from the cache, else takes the owner's installed ones for the same lockfiles, else installs
 * them in the sandbox with network only to its registries and keeps them in the cache. Throws
 * {@link SetupFailed} when an install fails. Records what it did in the worktree's setup state.
 */
export async function prepareDependencies(request: PrepareRequest): Promise<PrepareOutcome> {
  const { worktree, config, cache } = request;
  const sandbox = request.sandbox ?? DEFAULT_SANDBOX;
  const copied = request.ownerDir && config?.copy?.length ? await copyOwnerFiles(request.ownerDir, worktree, config.copy) : [];
  // Detected once: the ecosystems say which toolchains to look up, and are the plans unless the config has commands.
  const found = detectEcosystems(worktree);
  const owned = toolchainsOf(worktree, request.ownerDir, found.map((plan) => plan.ecosystem));
  // The Node the project asks for (engines, .nvmrc), where the owner has one: docs/real-repositories.md#node-engines.
  const { toolchains, note: nodeNote } = found.some((plan) => NODE_ECOSYSTEMS.includes(plan.ecosystem)) ? projectNode(worktree, owned) : { toolchains: owned };
  const plans = plansFor(worktree, config, toolchains, found).map((plan) => withOwnerVersions(plan, request.ownerDir));
  const state: SetupState = { config, sandbox: request.sandbox, toolchains, plans: [] };
  const steps: SetupStep[] = [];
  const report: string[] = [];
  const onWait = request.onWait ?? (() => request.command.onProgress?.({ outputBytes: 0 }));
  for (const plan of plans) {
    if (plan.unavailable) throw new SetupFailed(`setup failed: ${plan.ecosystem}: ${plan.unavailable}`, '');
    const started = Date.now();
    const command = (request.update && plan.updateCommand) || plan.command;
    let key = planKey(plan, worktree);
    let source: SetupStep['source'];
    // Workers sharing the cache install a key once: the others wait for its entry (docs/real-repositories.md#the-cache).
    const claim = key && !cache.has(key) ? await cache.claim(key, plan.ecosystem, { waitMs: request.command.timeoutMs + FILL_WAIT_MARGIN_MS, onWait, signal: request.command.signal }) : undefined;
    if (claim?.waitedMs) report.push(`waited ${Math.round(claim.waitedMs / 1000)} s for another worker's install of ${plan.ecosystem} (${key})`);
    try {
      if (key && cache.has(key)) {
        await cache.restore(key, worktree);
        source = 'cache';
      } else if (key && ownerHasSame(plan, worktree, request.ownerDir)) {
        // Two copies of the owner's tree at once: the worktree's, and the cache's for the next task.
        await Promise.all([cache.store(key, plan, worktree, request.ownerDir), copyOutputs(plan, request.ownerDir!, worktree)]);
        source = 'owner';
      } else {
        for (const output of plan.outputs) await removeTree(join(worktree, output));
        let ran = { plan, command };
        const logged = async (what: EcosystemPlan, shown = what.command) => {
          const run = await install(what, request, sandbox);
          report.push(`$ ${shown}\n(exit code ${run.exitCode}, ${run.durationMs} ms)\n${run.output}`.trimEnd());
          return run;
        };
        const installOnce = () => logged({ ...ran.plan, command: plan.prepare ? `${plan.prepare} && ${ran.command}` : ran.command }, ran.command);
        let run = await installOnce();
        // What the project asks of its toolchain stopped the install (a package's Node engines, Maven's enforcer): installed again as its owner would.
        const retry = run.exitCode !== 0 && !run.timedOut ? await installRetry(plan, command, run.output, { worktree, downloads: request.downloads, run: logged }) : undefined;
        if (retry) {
          ran = retry;
          run = await installOnce();
        }
        if (run.exitCode !== 0 || run.timedOut) throw installFailed({ ...ran.plan, command: ran.command }, run, request.config, sandbox);
        await retry?.keep(worktree);
        // An update rewrote the lockfile: the dependencies are kept under the key of the files as they are now.
        key = planKey(plan, worktree);
        if (key) await cache.store(key, plan, worktree);
        source = key ? 'installed' : 'ran';
      }
    } finally {
      await claim?.release();
    }
    // What an install run again did travels with its outputs: a restore runs on the same Node or Maven and says so too.
    const recorded = recordedRetry(plan, worktree);
    const note = [NODE_ECOSYSTEMS.includes(plan.ecosystem) ? nodeNote : undefined, recorded.note].filter(Boolean).join('; ');
    steps.push({ ecosystem: plan.ecosystem, command: source === 'cache' || source === 'owner' ? plan.command : command, source, key, durationMs: Date.now() - started, ...(note ? { note } : {}) });
    const { binDirs, toolchainPaths } = recorded.plan;
    state.plans.push({ ecosystem: plan.ecosystem, key, outputs: plan.outputs, scratch: plan.scratch, binDirs, commandEnv: plan.commandEnv, toolchainPaths, processes: plan.processes });
  }
  await writeSetupState(worktree, state);
  return { steps, copied, report: report.join('\n\n') };
}

/** Copies `plan`'s outputs from `from` into the worktree, each replacing what is there. */
async function copyOutputs(plan: EcosystemPlan, from: string, worktree: string): Promise<void> {
  for (const output of plan.outputs) {
    await removeTree(join(worktree, output));
    if (existsSync(join(from, output))) await copyTree(join(from, output), join(worktree, output));
  }
}

/** Runs `plan`'s install in the worktree, confined, with network only to its registries (and the config's hosts). */
async function install(plan: EcosystemPlan, request: PrepareRequest, sandbox: SandboxPolicy): Promise<ShellCommandResult> {
  const { worktree, config } = request;
  await mkdir(request.downloads, { recursive: true });
  const confined = sandbox.mode !== 'off';
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(plan.setupEnv)) {
    // Unconfined, the download caches are the host folder itself.
    env[name] = inWorktree(confined ? value : value.split(DOWNLOADS_INSIDE).join(request.downloads), worktree);
  }
  const offline = config?.network === false;
  // Offline, the package managers work from their download caches and fail at once instead of retrying a network that is not there.
  if (offline) Object.assign(env, OFFLINE_ENV);
  const hosts = offline ? [] : [...new Set([...plan.hosts, ...(config?.allowHosts ?? [])])];
  const limits = { ...sandbox.limits, memoryMb: Math.max(sandbox.limits.memoryMb, SETUP_ADDRESS_SPACE_MB), processes: Math.max(sandbox.limits.processes, plan.processes ?? 0) };
  const policy: SandboxPolicy = { ...sandbox, limits, allowHosts: hosts, env: [...sandbox.env, ...(config?.env ?? [])] };
  if (!confined) for (const name of config?.env ?? []) if (process.env[name] !== undefined) env[name] = process.env[name]!;
  // The machine's CAs, told to every package manager (unconfined, they read the worker's own settings).
  const trust = confined ? setupTrust(worktree) : undefined;
  try {
    return await runAgentCommand(plan.command, worktree, policy, { ...request.command, outputLimitBytes: SETUP_OUTPUT_LIMIT }, {
      pathDirs: binPaths(plan.binDirs, worktree),
      env: { ...trust?.env, ...env },
      readOnlyPaths: plan.toolchainPaths,
      writablePaths: [[request.downloads, DOWNLOADS_INSIDE]],
      readOnlyFiles: trust?.files,
      // A private registry on this host: only as setup.allowHosts names it, with its port.
      localHosts: hosts.filter((host) => /:\d+$/.test(host)),
    });
  } finally {
    trust?.dispose();
  }
}

/** True when the worktree's lockfiles or manifests changed since its setup (the agent added a dependency). */
export function dependenciesChanged(worktree: string): boolean {
  const state = readSetupState(worktree);
  if (!state) return false;
  const now = plansFor(worktree, state.config, state.toolchains ?? {});
  const before = new Map(state.plans.map((plan) => [plan.ecosystem, plan.key]));
  if (now.length !== state.plans.length) return true;
  return now.some((plan) => before.get(plan.ecosystem) !== planKey(plan, worktree));
}
