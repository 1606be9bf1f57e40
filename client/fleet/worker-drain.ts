import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ActivityDeps } from '../../activities';
import type { DexWorker } from '../../worker/start-worker';
import { InvalidInput } from '../../core/run/invalid-input';

/** The signal `dex worker --drain` sends the worker of its DEX_HOME. */
const DRAIN_SIGNAL = 'SIGUSR2';
/** How often a draining worker, and `dex worker --drain`, look again. */
const DRAIN_POLL_MS = 1_000;

/** Where a running `dex worker` keeps its pid, one per DEX_HOME (one worker per machine's home). */
const pidFile = (dexHome: string): string => join(dexHome, 'worker.pid');

/** Records this process as `dexHome`'s worker; the returned function forgets it (at exit). */
export function recordWorkerPid(dexHome: string): () => void {
  writeFileSync(pidFile(dexHome), `${process.pid}\n`);
  return () => {
    if (readPid(dexHome) === process.pid) rmSync(pidFile(dexHome), { force: true });
  };
}

function readPid(dexHome: string): number | undefined {
  try {
    const pid = Number(readFileSync(pidFile(dexHome), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Drains the worker when asked (docs/fleet.md#draining-a-worker): it stops taking task slots at
 * once, finishes the tasks it holds, and shuts down when it holds none.
 */
export function drainOnSignal(worker: DexWorker, fleet: NonNullable<ActivityDeps['fleet']>, say: (line: string) => void): void {
  process.once(DRAIN_SIGNAL, () => {
    worker.stopTakingTasks?.();
    say(`draining: no new task; ${fleet.held.size} held, exiting once they are done`);
    const timer = setInterval(() => {
      if (fleet.held.size) return;
      clearInterval(timer);
      say('drained: no task held; stopping');
      worker.shutdown();
    }, DRAIN_POLL_MS);
  });
}

/** `dex worker --drain`: asks `dexHome`'s running worker to drain and waits until it has exited. */
export async function drainWorker(dexHome: string, say: (line: string) => void): Promise<void> {
  const pid = readPid(dexHome);
  if (!pid || !alive(pid)) throw new InvalidInput(`no dex worker runs with DEX_HOME ${dexHome}: nothing to drain`);
  process.kill(pid, DRAIN_SIGNAL);
  say(`asked worker ${pid} to drain: it takes no new task and exits once its tasks are done`);
  while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
  say(`worker ${pid} drained and exited`);
}
