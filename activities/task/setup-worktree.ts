import { Context } from '@temporalio/activity';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import type { SandboxPolicy } from '../../core/safety/sandbox-policy';
import { describeDetectedVerify, describeSetup, setupDidSomething, type SetupConfig, type SetupResult } from '../../core/run/setup-types';
import { detectTestCommands } from '../../host/dependencies/test-command';
import { detectChecks } from '../../host/checks/detect-checks';
import { describePickedChecks, resolveChecks, type ChecksConfig } from '../../core/task/project-checks';
import { prepareDependencies } from '../../host/dependencies/prepare-dependencies';
import { SetupFailed } from '../../host/dependencies/setup-failed';
import type { ActivityDeps } from '../deps';
import { createRedactor } from '../../core/safety/redaction';
import { secretValues } from '../../host/secrets/secret-values';
import { hostDependencyCache } from '../run/host-dependency-cache';
import { heartbeatingWhileRunning, reportProgress } from '../run/local-heartbeat';
import { assertSandboxAvailable } from '../../host/sandbox/sandbox-availability';
import { assertWorktreeExists } from '../../host/worktree/worktree-paths';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { repositoryHere } from './worktree-state';

/** Time one install command may take before its process group is killed. @default 20 minutes */
const SETUP_COMMAND_TIMEOUT_MS = 20 * 60_000;

/** Input of the `setupWorktree` activity. */
interface SetupWorktreeInput {
  worktreePath: string;
  /** The owner's checkout: `setup.copy` files and installed dependencies that may be reused. */
  repoPath: string;
  /** A task on a forge repository: no owner's checkout here, only this worker's mirror (docs/fleet.md). */
  repo?: ForgeRepository;
  setup?: SetupConfig;
  sandbox?: SandboxPolicy;
  /** Id under which the report (every install's output) is stored, kind `setup`. */
  artifactId: string;
  /** Pick the project's test commands from the worktree once it is set up: the config has no `verify:`. */
  detectVerify?: boolean;
  /** Pick the project's own checks besides its tests (lint, typecheck, build), as `checks:` of the config turns them on; absent: none. */
  checks?: ChecksConfig;
}

/** The activity that makes a worktree ready to build and test (docs/real-repositories.md). */
export const createSetupActivities = (deps: ActivityDeps) => {
  const { cache, downloads } = hostDependencyCache(deps);
  return heartbeatingWhileRunning({
    /**
     * Installs or restores the worktree's dependencies before the task's first phase. Idempotent:
     * a retry restores from the cache what the first attempt installed. An install that fails is
     * non-retryable (`SetupFailed`, its output's tail as detail): the same lockfile fails the same way.
     */
    async setupWorktree(input: SetupWorktreeInput): Promise<SetupResult> {
      assertWorktreeExists(input.worktreePath);
      assertSandboxAvailable(input.sandbox);
      const started = Date.now();
      const ctx = Context.current();
      // setup.env names its secrets whatever they are called: their values are removed too (docs/security.md#redaction).
      const redactor = createRedactor(secretValues(process.env, input.setup?.env ?? []));
      await cache.sweep();
      try {
        const outcome = await prepareDependencies({
          worktree: input.worktreePath,
          ownerDir: await repositoryHere(input, deps.dexHome),
          config: input.setup,
          sandbox: input.sandbox,
          cache,
          downloads,
          command: { timeoutMs: SETUP_COMMAND_TIMEOUT_MS, signal: ctx.cancellationSignal },
          // Waiting for another worker's install of a shared cache key: said in the pending activity's heartbeat.
          onWait: (line) => reportProgress(line && { waiting: line }),
        });
        // After setup, so the commands fit what it made (a venv's `python`).
        const verify = input.detectVerify ? detectTestCommands(input.worktreePath) : [];
        const checks = input.checks === undefined ? [] : resolveChecks(detectChecks(input.worktreePath), input.checks);
        const result: SetupResult = {
          steps: outcome.steps,
          copied: outcome.copied,
          durationMs: Date.now() - started,
          artifactId: input.artifactId,
          ...(verify.length ? { verify } : {}),
          ...(checks.length ? { checks } : {}),
        };
        // The first lines are what `dex log` shows (what setup did, the verify it picked or `none found`); the install's output follows.
        // A repository with nothing to set up and no verify looked for has no report.
        const head = [
          describeSetup(result),
          ...(input.detectVerify ? [`verify: ${describeDetectedVerify(verify)}`] : []),
          ...(input.checks !== undefined ? [`checks: ${describePickedChecks(checks)}`] : []),
        ].join('\n');
        if (!setupDidSomething(result) && !input.detectVerify && !checks.length) return { ...result, artifactId: '' };
        await deps.store.putArtifact(input.artifactId, 'setup', redactor.redact([head, outcome.report].filter(Boolean).join('\n\n')));
        return setupDidSomething(result) ? result : { ...result, artifactId: '' };
      } catch (err) {
        if (!(err instanceof SetupFailed)) throw err;
        const [message, tail] = [redactor.redact(err.message), redactor.redact(err.tail)];
        await deps.store.putArtifact(input.artifactId, 'setup', `${message}\n\n${tail}`);
        throw nonRetryable(FAILURE.SetupFailed, message, [{ tail, artifactId: input.artifactId }]);
      }
    },
  });
};
