import type { EcosystemPlan } from './ecosystem-plan';
import { mavenRetry, recordedMaven, writeMavenRecord, type MavenFetch } from './jvm/maven-enforcer';
import { engineRetry, recordedEngines, writeEngineRecord } from './node/engine-retry';
import { NODE_ECOSYSTEMS } from './node/node-engines';

/** An install to run again as its owner would; `keep` records in the worktree what it did, for the cache to carry. */
interface InstallRetry {
  plan: EcosystemPlan;
  command: string;
  keep: (worktree: string) => Promise<void>;
}

/**
 * The install to run again after `command` of `plan` failed on what the project asks of its
 * toolchain: a package's Node `engines` (docs/real-repositories.md#node-engines), Maven's enforcer
 * asking for another Maven (docs/real-repositories.md#maven-and-gradle). Undefined for any other failure.
 */
export async function installRetry(plan: EcosystemPlan, command: string, output: string, fetch: MavenFetch): Promise<InstallRetry | undefined> {
  const engines = engineRetry(plan, command, output);
  if (engines) return { plan: engines.plan, command: engines.command, keep: (worktree) => writeEngineRecord(worktree, engines.record) };
  const maven = await mavenRetry(plan, output, fetch);
  return maven && { plan: maven.plan, command, keep: (worktree) => writeMavenRecord(worktree, maven.record) };
}

/** What an install run again did, as the worktree keeps it (installed, restored or copied): the plan later commands run with, and the setup line's note. */
export function recordedRetry(plan: EcosystemPlan, worktree: string): { plan: EcosystemPlan; note?: string } {
  if (NODE_ECOSYSTEMS.includes(plan.ecosystem)) return recordedEngines(plan, worktree);
  return plan.ecosystem === 'maven' ? recordedMaven(plan, worktree) : { plan };
}
