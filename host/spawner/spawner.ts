import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** What a command run through the spawner did. */
interface SpawnedOutput {
  stdout: Buffer;
  stderr: string;
}

/** How a command is run: where, with which environment, and how much output it may print. */
export interface SpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  maxBuffer: number;
}

interface Reply {
  id: number;
  code: number | null;
  signal: string | null;
  error?: string;
  stdout: string;
  stderr: string;
}

type Child = ChildProcessByStdio<Writable, Readable, null>;

/**
 * A long-lived small child process that starts dex's own short, read-only commands (the
 * worktree fingerprint's `git status`) for the worker. Forking copies the forking process's page
 * tables, so a spawn from a large worker blocks its event loop several times longer than one from
 * this small child (the figures: docs/performance.md#real-turns). A command whose child died before it answered fails
 * with SpawnerGone; callers run it directly then (read-only, so running it twice is harmless).
 */
export class Spawner {
  private child: Child | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (out: SpawnedOutput) => void; reject: (err: Error) => void; what: string }>();

  /** Runs `file args`; rejects like execFile does (a non-zero exit, a signal, a spawn error). */
  run(file: string, args: string[], opts: SpawnOptions): Promise<SpawnedOutput> {
    const child = this.started();
    const id = this.nextId++;
    const what = `${file} ${args.join(' ')}`;
    return new Promise<SpawnedOutput>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, what });
      child.ref();
      child.stdin.write(`${JSON.stringify({ id, file, args, cwd: opts.cwd, env: opts.env, maxBuffer: opts.maxBuffer })}\n`);
    });
  }

  /** Stops the child (tests; a worker's child ends with it, as its stdin closes). */
  stop(): void {
    this.child?.stdin.end();
    this.child = undefined;
  }

  private started(): Child {
    if (this.child) return this.child;
    const child: Child = spawn(process.execPath, [join(__dirname, 'child.cjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child = child;
    createInterface({ input: child.stdout }).on('line', (line) => this.settle(JSON.parse(line) as Reply));
    const gone = (why: string) => {
      if (this.child === child) this.child = undefined;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new SpawnerGone(`the spawner ${why} before it ran ${p.what}`));
      }
    };
    child.on('error', (err) => gone(`failed (${err.message})`));
    child.on('exit', (code, signal) => gone(`exited (${signal ?? code})`));
    child.stdin.on('error', () => {}); // a write after the child died: 'exit' rejects what was pending
    this.idle(child);
    return child;
  }

  private settle(reply: Reply): void {
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    if (this.child && this.pending.size === 0) this.idle(this.child);
    if (reply.code === 0) return p.resolve({ stdout: Buffer.from(reply.stdout, 'base64'), stderr: reply.stderr });
    const why = reply.error ?? (reply.signal ? `killed by ${reply.signal}` : `exit ${reply.code}`);
    p.reject(new Error(`${p.what}: ${why}${reply.stderr ? `: ${reply.stderr.trim()}` : ''}`));
  }

  /** An idle child does not keep the worker's process alive. */
  private idle(child: Child): void {
    child.unref();
    for (const stream of [child.stdin, child.stdout] as unknown as { unref?: () => void }[]) stream.unref?.();
  }
}

/** The spawner's child was gone before it answered: the command may not have run. */
export class SpawnerGone extends Error {
  override name = 'SpawnerGone';
}

let shared: Spawner | undefined;

/** This process's spawner, started on first use. */
export function processSpawner(): Spawner {
  shared ??= new Spawner();
  return shared;
}
