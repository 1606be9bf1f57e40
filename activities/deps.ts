import type Anthropic from '@anthropic-ai/sdk';
import type { Redactor } from '../core/safety/redaction';
import type { DexStore } from '../store/dex-store';
import type { FleetWorker } from '../core/fleet/placement-types';

/** This worker as a member of a fleet (docs/fleet.md): its name and queue, and the tasks whose slots it holds now. */
export interface FleetMembership {
  worker: FleetWorker;
  /** The workflow ids of the tasks it holds: `dex worker --drain` waits for none to be left. */
  held: Set<string>;
  /** Set when the worker stops (SIGTERM): its slots are given back, so their tasks move at once. */
  leaving?: boolean;
}

/** What the activities need from the process that hosts them. */
export interface ActivityDeps {
  store: DexStore;
  /** Root folder for dex's own files on this host (worktrees live under `<dexHome>/worktrees`). */
  dexHome: string;
  /** This host's dependency cache of task worktrees (host/cache-dir.ts dependencyCacheDir). */
  dependencyCache: string;
  /**
   * Makes the Anthropic client for a live call. The worker builds it with `maxRetries: 0`
   * (Temporal's retry policy is the only one) and the base URL and key it was given.
   */
  anthropicClient: (opts: { baseUrl?: string }) => Anthropic;
  /**
   * The worker's redaction step (docs/security.md#redaction), for what leaves other than through
   * the store: model requests and recorded cassettes. @default the shapes of credentials only
   */
  redactor?: Redactor;
  /** Set on a `dex worker` of a fleet: what its `holdTaskSlot` activity tells a task. */
  fleet?: FleetMembership;
}
