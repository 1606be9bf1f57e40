import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { SandboxPolicy } from '../../core/safety/sandbox-policy';
import type { SetupConfig } from '../../core/run/setup-types';
import type { EcosystemPlan, HostToolchains } from './ecosystem-plan';

/** What setup left in a worktree, as later commands and a second setup need to know it. */
export interface SetupState {
  config?: SetupConfig;
  sandbox?: SandboxPolicy;
  /** The owner's toolchains setup found (host-toolchains.ts): a later setup of this worktree uses the same. */
  toolchains?: HostToolchains;
  /** The plans set up, each with the key it was set up for. */
  plans: (Pick<EcosystemPlan, 'ecosystem' | 'outputs' | 'scratch' | 'binDirs' | 'commandEnv' | 'toolchainPaths' | 'processes'> & { key: string })[];
}

/** How a command in the worktree runs once it is set up: bin folders first on PATH, the environment its tools need. */
interface CommandSetup {
  /** Absolute folders put first on PATH. */
  pathDirs: string[];
  env: Record<string, string>;
  /** Host toolchain folders mounted read-only. */
  readOnlyPaths: string[];
  /** Paths (relative to the worktree) that are dependencies, never the task's work: checkpoints and rollbacks leave them out. */
  dependencyPaths: string[];
  /** The least processes a command may have, the plans' own (a JVM build's); 0 when none asks. */
  processes: number;
}

/**
 * The worktree's own git folder (`.git/worktrees/<name>` of the repository): the state lives
 * there, so `git worktree remove` takes it along, and the sandbox mounts it read-only, so nothing
 * the agent runs can change it.
 */
function worktreeGitDir(worktree: string): string | undefined {
  const dotGit = join(worktree, '.git');
  if (!existsSync(dotGit)) return undefined;
  if (lstatSync(dotGit).isDirectory()) return dotGit;
  const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
  return pointer ? (isAbsolute(pointer) ? pointer : resolve(worktree, pointer)) : undefined;
}

const STATE_FILE = 'dex-setup.json';

/** The setup state of `worktree`, or undefined before its setup (or for a run started before setup existed). */
export function readSetupState(worktree: string): SetupState | undefined {
  const dir = worktreeGitDir(worktree);
  if (!dir || !existsSync(join(dir, STATE_FILE))) return undefined;
  try {
    return JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8')) as SetupState;
  } catch {
    return undefined;
  }
}

/** Records `state` for `worktree`. */
export async function writeSetupState(worktree: string, state: SetupState): Promise<void> {
  const dir = worktreeGitDir(worktree);
  if (!dir) throw new Error(`${worktree} is no git worktree`);
  await writeFile(join(dir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
}

/** `{worktree}` in a plan's environment values stands for the worktree's path. */
export const inWorktree = (value: string, worktree: string): string => value.split('{worktree}').join(worktree);

/** A plan's bin folders as absolute paths: the worktree's own, and a toolchain's as they are. */
export const binPaths = (dirs: string[], worktree: string): string[] => dirs.map((dir) => (isAbsolute(dir) ? dir : join(worktree, dir)));

/** How commands in `worktree` run, from its setup state; nothing special before setup. */
export function commandSetup(worktree: string, state: SetupState | undefined = readSetupState(worktree)): CommandSetup {
  const setup: CommandSetup = { pathDirs: [], env: {}, readOnlyPaths: [], dependencyPaths: [], processes: 0 };
  for (const plan of state?.plans ?? []) {
    setup.pathDirs.push(...binPaths(plan.binDirs, worktree));
    for (const [name, value] of Object.entries(plan.commandEnv)) setup.env[name] = inWorktree(value, worktree);
    setup.readOnlyPaths.push(...plan.toolchainPaths);
    setup.dependencyPaths.push(...plan.outputs, ...(plan.scratch ?? []));
    setup.processes = Math.max(setup.processes, plan.processes ?? 0);
  }
  return setup;
}
