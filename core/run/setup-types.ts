/**
 * What makes a task's worktree ready to build and test (docs/real-repositories.md): the
 * `setup:` section of `dex.config.yaml` as the client parsed it, and what the setup step
 * reports. Plain data: it crosses workflow history as JSON.
 */
import type { ProjectCheck } from '../task/project-checks';

/** The `setup:` section of `dex.config.yaml`; absent, dex detects the repository's ecosystems. */
export interface SetupConfig {
  /** Commands that replace detection, run in order in the sandbox. @default detected from the lockfiles */
  commands?: string[];
  /** With `commands`: folders of the worktree they produce, cached by `inputs`. @default none (the commands run every time) */
  cache?: string[];
  /** With `commands`: files whose content keys that cache. @default none */
  inputs?: string[];
  /** Hosts setup may reach beyond the registries detection names. @default none */
  allowHosts?: string[];
  /** Names of the worker's environment variables setup gets (a private registry's token); the agent never does. @default none */
  env?: string[];
  /** Files or folders copied from the owner's checkout into each worktree before setup (`.env`); git must ignore them. @default none */
  copy?: string[];
  /** Hosts setup may reach at all: `false` takes the registries away too (setup then works only from the cache or the owner's checkout). @default true */
  network?: boolean;
}

/** Where one ecosystem's dependencies came from. */
type SetupSource = 'cache' | 'owner' | 'installed' | 'ran';

/** One ecosystem's part of a setup. */
export interface SetupStep {
  /** `npm`, `pnpm`, `yarn`, `python`, `go`, `rust`, or `commands` for the config's own. */
  ecosystem: string;
  /** What ran, or would have: the install command. */
  command: string;
  source: SetupSource;
  /** The cache key (a hash of the lockfiles, manifests, toolchain and commands); empty when nothing is cached. */
  key: string;
  durationMs: number;
  /**
   * How this install differs from the owner's plain one, for the setup line: the Node a package's
   * engines asked for and the one used (docs/real-repositories.md#node-engines). Absent when none.
   */
  note?: string;
}

/** What the setup step reports; its output is a stored artifact. */
export interface SetupResult {
  steps: SetupStep[];
  /** Files copied from the owner's checkout. */
  copied: string[];
  durationMs: number;
  /** Id of the stored report (kind `setup`): this summary's line, then every install's output; empty when there was nothing to set up. */
  artifactId: string;
  /**
   * The project's test commands, picked from the set-up worktree when the task asked for them
   * (`dex.config.yaml` has no `verify:`; docs/real-repositories.md#verify-without-configuration).
   * Absent when none fits, when not asked, and in results of older releases.
   */
  verify?: string[];
  /**
   * The project's own checks besides its tests, picked from the set-up worktree as the config
   * turns them on (docs/real-repositories.md#checks-besides-tests). Absent when none, when not
   * asked, and in results of older releases.
   */
  checks?: ProjectCheck[];
}

/** What every view says of a task for which dex looked for the project's test commands and found none. */
const VERIFY_NONE_FOUND = 'none found';

/**
 * How `dex status`, `dex log` and the Web UI name verify commands dex picked itself: `npm test
 * (detected)`, or {@link VERIFY_NONE_FOUND} (docs/real-repositories.md#no-test-command-found).
 */
export const describeDetectedVerify = (commands: readonly string[]): string => (commands.length ? `${commands.join(' && ')} (detected)` : VERIFY_NONE_FOUND);

/** True when setup installed, restored or copied anything: a repository with nothing to set up says nothing about it. */
export const setupDidSomething = (result: SetupResult): boolean => result.steps.length > 0 || result.copied.length > 0;

/** One line for a person: `npm from cache 0.3 s · python installed 12.1 s`, or `nothing to set up`. */
export function describeSetup(result: SetupResult): string {
  const words: Record<SetupSource, string> = { cache: 'from cache', owner: "from the owner's checkout", installed: 'installed', ran: 'ran' };
  const parts = result.steps.map((s) => `${s.ecosystem} ${words[s.source]} ${(s.durationMs / 1000).toFixed(1)} s${s.note ? ` (${s.note})` : ''}`);
  if (result.copied.length) parts.push(`copied ${result.copied.join(', ')}`);
  return parts.length ? parts.join(' · ') : 'nothing to set up';
}
