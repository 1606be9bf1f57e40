import { describeSetup } from '../../core/run/setup-types';
import type { ShellCommandOptions } from '../shell/shell-command';
import type { DependencyCache } from './dependency-cache';
import { dependenciesChanged, prepareDependencies } from './prepare-dependencies';
import { SetupFailed } from './setup-failed';
import { readSetupState } from './setup-state';

/** What a refresh did: nothing, set the worktree up again (`note`), or failed (`failure`, for the agent to read). */
interface Refresh {
  note?: string;
  failure?: SetupFailed;
}

/**
 * Sets the worktree up again when its lockfiles or manifests changed since its setup (the agent
 * added a dependency), so verify runs against what they now name; the cache learns the new key.
 */
export async function refreshDependencies(
  worktree: string,
  caches: { cache: DependencyCache; downloads: string },
  command: Omit<ShellCommandOptions, 'outputLimitBytes'>,
): Promise<Refresh> {
  const state = readSetupState(worktree);
  if (!state || !dependenciesChanged(worktree)) return {};
  const started = Date.now();
  try {
    const outcome = await prepareDependencies({ worktree, config: state.config, sandbox: state.sandbox, ...caches, command, update: true });
    const result = { steps: outcome.steps, copied: [], durationMs: Date.now() - started, artifactId: '' };
    return { note: `Dependencies changed, set up again: ${describeSetup(result)}.` };
  } catch (err) {
    if (err instanceof SetupFailed) return { failure: err };
    throw err;
  }
}
