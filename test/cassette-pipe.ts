/**
 * A replay cassette served through a named pipe, so a test can hold a model call at a point it
 * chooses: every reader (the CLI checking `--llm replay:FILE`, each model call of a worker)
 * opens the pipe and waits there until the test writes the cassette to it. The pipe answers
 * every reader at once, except the one `hold` names, which waits until released.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';

/** The `n`-th reader of the pipe: `reached` once it has opened it, answered after `release()`. */
export interface HeldRead {
  reached: Promise<void>;
  release(): void;
}

export class CassettePipe {
  readonly path: string;
  private readers = 0;
  private closed = false;
  private held: { n: number; reached: () => void; released: Promise<void>; release: () => void } | undefined;
  private readonly serving: Promise<void>;

  /** A pipe `cassette.pipe.jsonl` in `dir` that answers each reader with `text`. */
  constructor(dir: string, private readonly text: string) {
    this.path = join(dir, 'cassette.pipe.jsonl');
    execFileSync('mkfifo', [this.path]);
    this.serving = this.serve();
  }

  /** Holds the `n`-th reader (1-based, counted from the pipe's making) until released. */
  hold(n: number): HeldRead {
    let reached!: () => void;
    let release!: () => void;
    const reachedP = new Promise<void>((r) => (reached = r));
    const released = new Promise<void>((r) => (release = r));
    this.held = { n, reached, released, release };
    return { reached: reachedP, release };
  }

  private async serve(): Promise<void> {
    while (!this.closed) {
      // Opening a pipe for writing returns once a reader has opened it.
      const fh = await open(this.path, 'w');
      try {
        if (this.closed) return;
        this.readers += 1;
        if (this.held?.n === this.readers) {
          this.held.reached();
          await this.held.released;
        }
        await fh.writeFile(this.text);
      } catch {
        // A reader that went away before the answer (a worker stopped) gets none.
      } finally {
        await fh.close();
      }
    }
  }

  /** Stops answering: opens the pipe for reading once so that the waiting writer returns. */
  async close(): Promise<void> {
    this.closed = true;
    this.held?.release();
    closeSync(openSync(this.path, constants.O_RDONLY | constants.O_NONBLOCK));
    await this.serving;
  }
}
