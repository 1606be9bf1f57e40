// A worktree and an outside folder for the file-tool attack tests, made fresh for each test.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { executeAgentTool, type AgentToolOutcome } from '../../../activities/tools/agent-tools';

/** What the outside folder's secret file holds. */
export const SECRET = 'SECRET outside the worktree\n';

const limits = { commandTimeoutMs: 10_000, outputLimitBytes: 1024 };

/** `promise`, or a rejection once `ms` have passed. */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still running after ${ms}ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The worktree (`root`), the folder outside it, and the tools run against them; set up per test. */
export interface HostileWorktree {
  root: string;
  outside: string;
  run(name: string, input: unknown): Promise<AgentToolOutcome>;
  /** The outside folder still holds only its secret, unchanged. */
  secretIntact(): void;
  /** The message of a refused call, checked to name no host path. */
  refused(name: string, input: unknown, expected: string | RegExp): Promise<string>;
}

/** Registers the per-test set-up and tear-down of a hostile worktree; read its fields inside tests. */
export function useHostileWorktree(): HostileWorktree {
  const w: HostileWorktree = {
    root: '',
    outside: '',
    run: (name, input) => executeAgentTool(name, input, { root: w.root, limits }),
    secretIntact: () => {
      expect(readdirSync(w.outside)).toEqual(['secret.txt']);
      expect(readFileSync(join(w.outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    },
    refused: async (name, input, expected) => {
      const result = await w.run(name, input);
      expect(result.isError, `${name} ${JSON.stringify(input)} was not refused: ${result.content}`).toBe(true);
      expect(result.content).toMatch(expected);
      for (const host of [w.root, w.outside, '/proc/', tmpdir()]) expect(result.content).not.toContain(host);
      return result.content;
    },
  };
  beforeEach(() => {
    w.root = realpathSync(mkdtempSync(join(tmpdir(), 'dex-files-')));
    w.outside = realpathSync(mkdtempSync(join(tmpdir(), 'dex-outside-')));
    writeFileSync(join(w.outside, 'secret.txt'), SECRET);
    mkdirSync(join(w.root, 'src'));
    writeFileSync(join(w.root, 'src', 'a.txt'), 'inside\n');
  });
  afterEach(() => {
    rmSync(w.root, { recursive: true, force: true });
    rmSync(w.outside, { recursive: true, force: true });
  });
  return w;
}
