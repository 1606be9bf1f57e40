/**
 * The real `dex` binary, spawned as a user would run it, for the CLI tests: its exit code and
 * its whole stdout and stderr, with stderr also seen as it comes (progress, gates).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** How a `dex` command ended; `code` is null when a signal (the timeout) ended it. */
export interface DexRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** How to run a `dex` command. */
export interface DexRunOptions {
  /** Variables set over this process's environment; an `undefined` value removes the variable. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The dex checkout whose `bin/dex.js` runs (an older release's worktree); default: this one. */
  tree?: string;
  /** Ends the command with SIGTERM after this long. */
  timeoutMs?: number;
  /** Sees all of stderr so far, each time more of it arrives, and the command's process (to signal it). */
  onStderr?: (stderr: string, child: ChildProcess) => void;
}

const ROOT = join(__dirname, '..', '..', '..');

/** Runs `dex …args` to its end. */
export function runDex(args: string[], opts: DexRunOptions = {}): Promise<DexRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(opts.tree ?? ROOT, 'bin', 'dex.js'), ...args], { env, cwd: opts.cwd, timeout: opts.timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      opts.onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
