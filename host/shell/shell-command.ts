import { spawn } from 'node:child_process';
import { HIDDEN_ENV } from '../../core/safety/sandbox-policy';

/** Output a command produces is reported as progress at most this often. @default 1000 */
const OUTPUT_PROGRESS_MS = 1000;

/** How often a running command that prints nothing reports progress when not told otherwise. @default 5000 */
const ALIVE_PROGRESS_MS = 5000;

/** What a running command reports as its progress. */
export interface CommandProgress {
  /** Bytes of output (stdout and stderr) so far. */
  outputBytes: number;
}

/** Options of {@link runProcess}. */
export interface ShellCommandOptions {
  timeoutMs: number;
  /** Only the last this many bytes of the combined output are kept. */
  outputLimitBytes: number;
  /** Aborting kills the command; the returned promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Called to heartbeat: when output arrives (at most every {@link OUTPUT_PROGRESS_MS}), and
   * while the process is alive, after `progressIntervalMs` without output. A local child that
   * still runs is progress (a test suite may print nothing for minutes), so a silent command is
   * never given up for its silence: the heartbeat timeout only notices a dead worker, and
   * `timeoutMs` bounds a command that hangs.
   */
  onProgress?: (progress: CommandProgress) => void;
  /** @default ALIVE_PROGRESS_MS */
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
interface ProcessSpec {
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * Called once the process exited, with what it wrote to fd 3 (a pipe only when this is set);
   * the result waits for it: bubblewrap uses it to wait until its sandbox is gone.
   */
  afterExit?: (fd3: string) => Promise<void>;
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
      stdio: spec.afterExit ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
    });
    // Both pipes exist: stdio asks for them (the optional fd 3 makes TypeScript unsure).
    const stdout = child.stdout!;
    const stderr = child.stderr!;
    const pid = child.pid;
    let fd3 = '';
    (child.stdio[3] as NodeJS.ReadableStream | null | undefined)?.on('data', (chunk: Buffer) => (fd3 += chunk.toString('utf8')));
    const kill = (): void => {
      if (pid !== undefined) killGroup(pid);
    };
    const progress = progressReporter(opts, () => tail.total);
    const onOutput = (chunk: Buffer): void => {
      tail.push(chunk);
      progress.output();
    };
    stdout.on('data', onOutput);
    stderr.on('data', onOutput);

    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs);
    const onAbort = (): void => kill();
    signal?.addEventListener('abort', onAbort, { once: true });
    let graceTimer: NodeJS.Timeout | undefined;

    const settle = (code: number | null, killedBy: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      progress.stop();
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const { text, omittedBytes } = tail.snapshot();
      const result = { exitCode: code, killedBy, timedOut, output: text, omittedBytes, durationMs: Date.now() - started };
      void Promise.resolve(spec.afterExit?.(fd3)).finally(() => resolvePromise(result));
    };
    // Background processes the command left behind would hold the pipes open and keep
    // 'close' from firing; the command is over, so they go too, and the pipes are cut
    // if something outside the group still holds them.
    child.on('exit', (code, killedBy) => {
      progress.stop();
      kill();
      graceTimer = setTimeout(() => {
        stdout.destroy();
        stderr.destroy();
        settle(code, killedBy);
      }, PIPE_GRACE_MS);
    });
    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      progress.stop();
      signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('close', (code, killedBy) => settle(code, killedBy));
  });
}

/**
 * Reports a command's progress through `opts.onProgress`: on output, throttled, and after
 * `progressIntervalMs` of silence while the process is alive; nothing once `stop()` was called.
 */
function progressReporter(opts: ShellCommandOptions, outputBytes: () => number): { output(): void; stop(): void } {
  const { onProgress } = opts;
  if (!onProgress) return { output: () => {}, stop: () => {} };
  const aliveMs = opts.progressIntervalMs ?? ALIVE_PROGRESS_MS;
  let lastAt = 0;
  let stopped = false;
  let alive: NodeJS.Timeout | undefined;
  const report = (): void => {
    lastAt = Date.now();
    clearTimeout(alive);
    alive = setTimeout(report, aliveMs);
    onProgress({ outputBytes: outputBytes() });
  };
  alive = setTimeout(report, aliveMs);
  return {
    output: () => {
      if (!stopped && Date.now() - lastAt >= OUTPUT_PROGRESS_MS) report();
    },
    stop: () => {
      stopped = true;
      clearTimeout(alive);
    },
  };
}

/** The kept output, led by a line saying how many earlier bytes were dropped, if any were. */
export function outputTail(result: ShellCommandResult): string {
  const note = result.omittedBytes > 0 ? `[${result.omittedBytes} earlier bytes of output omitted]\n` : '';
  return note + result.output;
}

/**
 * How often a silent command reports that it still runs, for an activity whose heartbeat timeout
 * is `heartbeatTimeoutMs`: twice per timeout (one beat may be late), or {@link ALIVE_PROGRESS_MS}
 * without one.
 */
export function progressIntervalFor(heartbeatTimeoutMs: number | undefined): number {
  return heartbeatTimeoutMs ? Math.max(10, heartbeatTimeoutMs / 2) : ALIVE_PROGRESS_MS;
}

/** The last `lines` lines of `output`, at most `chars` characters of them (a failure's tail for a person or the model). */
export function lastLines(output: string, bounds: { lines: number; chars: number }): string {
  const lines = output.trimEnd().split('\n').slice(-bounds.lines).join('\n');
  return lines.length > bounds.chars ? lines.slice(-bounds.chars) : lines;
}
