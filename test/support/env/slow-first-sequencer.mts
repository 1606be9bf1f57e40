import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import durations from './test-durations.json' with { type: 'json' };

/**
 * Starts the suite's slowest files first, by the durations in test-durations.json (refreshed with
 * scripts/test-durations.ts), then the rest in vitest's own order. Vitest orders by the durations
 * of earlier runs, which a fresh clone (CI's, a new contributor's) does not have: it falls back
 * to file size, and a short file that waits a minute (a 24-task roadmap) started last ran alone
 * while the other workers had nothing left (issue 42, docs/fresh-machine.md#measured).
 */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const known = durations as Record<string, number>;
    const ms = (f: TestSpecification) => known[relative(this.ctx.config.root, f.moduleId)] ?? 0;
    const ordered = await super.sort(files);
    // Array.prototype.sort is stable: files with no figure keep vitest's order after those with one.
    return ordered.sort((a, b) => ms(b) - ms(a));
  }
}
