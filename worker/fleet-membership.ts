import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { FleetMembership } from '../activities/deps';

/** How many tasks a worker holds at once unless `dex worker --tasks K` says: set-ups and test suites use its CPU. */
export const DEFAULT_TASK_SLOTS = 2;

/**
 * This worker as a member of the fleet of `taskQueue` (docs/fleet.md#running-a-fleet): its name
 * (DEX_WORKER_NAME, else the host and a hash of its DEX_HOME, so two workers of one host with their
 * own homes are two members) and the queue only it polls.
 */
export function fleetMembership(taskQueue: string, dexHome: string, env: NodeJS.ProcessEnv = process.env): FleetMembership {
  const name = env.DEX_WORKER_NAME?.trim() || `${hostname()}~${createHash('sha256').update(dexHome).digest('hex').slice(0, 8)}`;
  return { worker: { name, queue: `${taskQueue}@${name}` }, held: new Set() };
}
