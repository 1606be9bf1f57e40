import { spawn } from 'node:child_process';
import { HIDDEN_ENV } from '../core/sandbox-policy';

/** How often a running command reports progress when not told otherwise. @default 2000 */
export const PROGRESS_INTERVAL_MS = 2000;

/** Options of {@link runShellCommand}. */
export interface ShellCommandOptions {
  timeoutMs: number;
  /** Only the last this many bytes of the combined output are kept. */
  outputLimitBytes: number;
  /** Aborting kills the command; the returned promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called every `progressIntervalMs` while the command runs (to heartbeat). */
  onProgress?: () => void;
  /** @default 2000 */
  progressIntervalMs?: number;
}

/** What a finished shell command left behind. */
export interface ShellCommandResult {
  /** The exit code; null when the command was killed by a signal (its name is in `killedBy`). */
  exitCode: number | null;
  killedBy: NodeJS.Signals | null;
  timedOut: boolean;
  /** The tail of stdout and stderr interleaved as they arrived, at most `outputLimitBytes`. */
  output: string;
  /** Bytes of output dropped from the front to respect the limit. */
  omittedBytes: number;
  durationMs: number;
}

/** Keeps the last `limit` bytes of a stream of chunks. */
class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;
  total = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    this.total += chunk.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0].length >= this.limit) {
      this.size -= this.chunks.shift()!.length;
    }
  }

  snapshot(): { text: string; omittedBytes: number } {
    const all = Buffer.concat(this.chunks);
    let start = Math.max(0, all.length - this.limit);
    // Do not start in the middle of a UTF-8 character.
    while (start > 0 && start < all.length && (all[start] & 0xc0) === 0x80) start++;
    const kept = all.subarray(start);
    return { text: kept.toString('utf8'), omittedBytes: this.total - kept.length };
  }
}


/** The worker's environment without {@link HIDDEN_ENV}. */
export function commandEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !HIDDEN_ENV.test(name)));
}

/** Kills every process of the group led by `pid`. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone. Nothing else is worth crashing the worker for.
  }
}

/** How long the output pipes may stay open after the command exited before they are cut. @default 1000 */
const PIPE_GRACE_MS = 1000;

/** A process to start: its argv, working folder and complete environment. */
export interface ProcessSpec {
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Runs `spec` in a process group of its own, so that a timeout or an abort kills everything it
 * started. The timeout bounds wall time: once the process exited, pipes that something else
 * still holds are cut after a short grace.
 */
export function runProcess(spec: ProcessSpec, opts: ShellCommandOptions): Promise<ShellCommandResult> {
  const { signal } = opts;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const tail = new OutputTail(opts.outputLimitBytes);
    let timedOut = false;
    let settled = false;
    const child = spawn(spec.argv[0], spec.argv.slice(1), {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pid = child.pid;
    const kill = (): void => {
      if (pid !== undefined) killGroup(pid);
    };
    child.stdout.on('data', (chunk: Buffer) => tail.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => tail.push(chunk));

    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs);
    const ticker = opts.onProgress && setInterval(opts.onProgress, opts.progressIntervalMs ?? PROGRESS_INTERVAL_MS);
    const onAbort = (): void => kill();
    signal?.addEventListener('abort', onAbort, { once: true });
    let graceTimer: NodeJS.Timeout | undefined;

    const settle = (code: number | null, killedBy: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      if (ticker) clearInterval(ticker);
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const { text, omittedBytes } = tail.snapshot();
      resolvePromise({ exitCode: code, killedBy, timedOut, output: text, omittedBytes, durationMs: Date.now() - started });
    };
    // Background processes the command left behind would hold the pipes open and keep
    // 'close' from firing; the command is over, so they go too, and the pipes are cut
    // if something outside the group still holds them.
    child.on('exit', (code, killedBy) => {
      kill();
      graceTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        settle(code, killedBy);
      }, PIPE_GRACE_MS);
    });
    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('close', (code, killedBy) => settle(code, killedBy));
  });
}

/**
 * Runs `command` with `/bin/sh -c` in `cwd`, unconfined but without the model's credentials
 * (for commands a person wrote, such as a sheet's statements).
 */
export function runShellCommand(command: string, cwd: string, opts: ShellCommandOptions): Promise<ShellCommandResult> {
  return runProcess({ argv: ['/bin/sh', '-c', command], cwd, env: commandEnv() }, opts);
}

/** The kept output, led by a line saying how many earlier bytes were dropped, if any were. */
export function outputTail(result: ShellCommandResult): string {
  const note = result.omittedBytes > 0 ? `[${result.omittedBytes} earlier bytes of output omitted]\n` : '';
  return note + result.output;
}

/**
 * How often to report progress for an activity whose heartbeat timeout is `heartbeatTimeoutMs`:
 * every {@link PROGRESS_INTERVAL_MS}, or twice per timeout when that is shorter.
 */
export function progressIntervalFor(heartbeatTimeoutMs: number | undefined): number {
  return heartbeatTimeoutMs ? Math.min(PROGRESS_INTERVAL_MS, Math.max(10, heartbeatTimeoutMs / 2)) : PROGRESS_INTERVAL_MS;
}
