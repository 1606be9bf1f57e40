/**
 * Nothing the CLI waits for stays silent for more than two seconds: a wait that lasts says what
 * it waits for, then again now and then with the seconds waited.
 */
import { connect, type ConnectOptions, type Connections } from '../server/connection';
import { EMBEDDED_ADDRESS, type Settings } from '../settings';
import { ensureWorkflowHost } from '../server/workflow-host';

/** When a wait is first told, and how often again after that. */
interface WaitNotice {
  /** @default 2000 */
  afterMs?: number;
  /** @default 5000 */
  everyMs?: number;
}

/**
 * Awaits `work`; once it has taken `afterMs`, says "`what` (Ns)…", and again every `everyMs`
 * until it settles.
 */
export async function saysWhileWaiting<T>(work: Promise<T>, what: string, say: (line: string) => void, notice: WaitNotice = {}): Promise<T> {
  const { afterMs = 2_000, everyMs = 5_000 } = notice;
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const schedule = (delay: number): void => {
    timer = setTimeout(() => {
      say(`${what} (${Math.round((Date.now() - started) / 1000)}s)…`);
      schedule(everyMs);
    }, delay);
    // A notice never keeps the process alive.
    timer.unref();
  };
  schedule(afterMs);
  try {
    return await work;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connects to the server (see connect, whose options it takes), saying so when it takes a while.
 * On the embedded server, a workflow host keeps every run legible (client/server/workflow-host.ts):
 * started when missing, and waited for by a command that starts runs.
 */
export async function connectSaying(settings: Settings, say: (line: string) => void, opts: ConnectOptions = {}): Promise<Connections> {
  const where = settings.address ?? `${EMBEDDED_ADDRESS} (the embedded dev server)`;
  const conns = await saysWhileWaiting(connect(settings, say, opts), `connecting to the Temporal server at ${where}`, say);
  if (settings.address || opts.workflowHost === false) return conns;
  try {
    const host = ensureWorkflowHost(conns.client, settings, say, { wait: !!opts.forRuns });
    await saysWhileWaiting(host, "waiting for dex's workflow host to poll (it bundles the workflows once)", say);
  } catch (err) {
    await conns.close();
    throw err;
  }
  return conns;
}
