import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../../../core/run/run-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';

/** A verify command that never ends and writes to the worktree all the while. */
const WRITING_VERIFY = 'i=0; while true; do echo $i >> progress.log; i=$((i+1)); sleep 0.05; done';

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    toolTurn('C1', ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }]),
    completionTurn('C1', { status: 'complete', summary: 'sum adds' }),
  ],
  queue: 'dex-it-cancel',
});

describe('cancelling a task while verify still writes', () => {
  it('rolls back only after the command stopped: the worktree is clean at the end and 2 s later', { timeout: 60_000 }, async () => {
    const { handle } = await dex.startTask('C1', { verify: [WRITING_VERIFY] });
    const worktree = join(dex.worker.dexHome, 'worktrees', handle.workflowId);
    const log = join(worktree, 'progress.log');
    // Cancel once verify runs and has written a few lines.
    for (;;) {
      const status = await handle.query<RunStatus>('status');
      if (status.current.activity === 'verify' && existsSync(log) && readFileSync(log, 'utf8').split('\n').length > 5) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await handle.cancel();
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);

    const porcelain = () => execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: worktree, encoding: 'utf8' });
    expect(porcelain()).toBe('');
    // A command that outlived the rollback writes every 50 ms: 2 s is forty chances to dirty the worktree again.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(porcelain()).toBe('');
    expect(existsSync(log)).toBe(false);
  });
});
