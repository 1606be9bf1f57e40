import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from '../support/house/import-graph';

const ROOT = join(__dirname, '..', '..');

/**
 * Which folders each folder may import from (docs/architecture.md#folders): every arrow points
 * down, toward code with fewer reasons to change. A folder absent from a list is uphill.
 * bench/, scripts/ and test/ stand outside the house and may use any of it.
 */
const DOWNHILL: Record<string, string[]> = {
  core: [],
  tracing: ['core'],
  store: ['core'],
  host: ['core'],
  activities: ['core', 'host', 'store', 'tracing'],
  // Activity types only: ESLint refuses a value (test/house/lint.test.ts).
  workflows: ['core', 'activities'],
  worker: ['core', 'host', 'store', 'tracing', 'activities'],
  client: ['core', 'host', 'store', 'tracing'],
};

/**
 * The few files of an uphill folder another folder may still import: its declared entry points.
 * The CLI hosts a worker (`dex worker`, the in-process worker, the time-skipping test server),
 * and starts workflows by their type.
 */
const ENTRY_POINTS: Record<string, string[]> = {
  client: ['worker/start-worker.ts', 'worker/workflow-worker.ts', 'worker/workflow-code-version.ts', 'activities/index.ts', 'workflows/index.ts'],
};

/** Every import of `files` (below `root`) from one folder of `rules` to another that its rules do not allow, as `from → to`. */
function uphill(root: string, files: string[], rules: Record<string, string[]>, entries: Record<string, string[]>): string[] {
  const folderOf = (path: string) => path.split('/')[0];
  const found: string[] = [];
  for (const file of files) {
    const from = relative(root, file);
    const allowed = rules[folderOf(from)];
    if (!allowed) continue;
    for (const target of importsOf(file)) {
      const to = relative(root, target);
      const folder = folderOf(to);
      if (folder === folderOf(from) || allowed.includes(folder) || !(folder in rules)) continue;
      if (entries[folderOf(from)]?.includes(to)) continue;
      found.push(`${from} → ${to}`);
    }
  }
  return found.sort();
}

/**
 * Within workflows/, activities/ and core/, which plan kind's room may import which: a roadmap and
 * a sheet run tasks, so they may use the task's room; no kind uses another's otherwise. Rooms
 * every kind shares (run/, model/, tools/, …) are below them all.
 */
const KINDS: Record<string, string[]> = { task: [], layer: [], roadmap: ['task'], sheet: ['task'] };

/** Every import of `files` from one kind's room to another's of the same folder that KINDS does not allow. */
function sideways(root: string, files: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const [top, room] = relative(root, file).split('/');
    if (!(room in KINDS)) continue;
    for (const target of importsOf(file)) {
      const [targetTop, targetRoom] = relative(root, target).split('/');
      if (targetTop === top && targetRoom in KINDS && targetRoom !== room && !KINDS[room].includes(targetRoom)) found.push(`${relative(root, file)} → ${relative(root, target)}`);
    }
  }
  return found.sort();
}

describe('imports between folders', () => {
  it('point downhill only: no folder imports one above it', () => {
    const files = sourceFiles(ROOT, Object.keys(DOWNHILL));
    expect(uphill(ROOT, files, DOWNHILL, ENTRY_POINTS)).toEqual([]);
  });

  it('activities/ never imports workflows/, not even a type', () => {
    const files = sourceFiles(ROOT, ['activities']);
    const up = files.flatMap((file) => importsOf(file).filter((t) => relative(ROOT, t).startsWith('workflows/')).map((t) => `${relative(ROOT, file)} → ${relative(ROOT, t)}`));
    expect(up).toEqual([]);
  });

  it('go from one plan kind\'s room to another only where that kind runs the other (a roadmap or a sheet runs tasks)', () => {
    expect(sideways(ROOT, sourceFiles(ROOT, ['workflows', 'activities', 'core']))).toEqual([]);
  });

  it('the room check finds a task that imports a roadmap on purpose', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dex-rooms-'));
    mkdirSync(join(dir, 'core', 'task'), { recursive: true });
    mkdirSync(join(dir, 'core', 'roadmap'), { recursive: true });
    writeFileSync(join(dir, 'core', 'task', 'a.ts'), "import type { B } from '../roadmap/b';\nexport type A = B;\n");
    writeFileSync(join(dir, 'core', 'roadmap', 'b.ts'), "import type { C } from '../task/c';\nexport type B = C;\n");
    writeFileSync(join(dir, 'core', 'task', 'c.ts'), 'export type C = number;\n');
    expect(sideways(dir, sourceFiles(dir, ['core']))).toEqual(['core/task/a.ts → core/roadmap/b.ts']);
  });

  it('the check finds an arrow made uphill on purpose, and lets a declared entry point through', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dex-arrows-'));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    write('low/a.ts', 'export const a = 1;\n');
    write('high/b.ts', "import { a } from '../low/a';\nexport const b = a;\n");
    write('high/door.ts', 'export const door = 1;\n');
    write('low/c.ts', "import type { b } from '../high/b';\nexport type C = typeof b;\n");
    write('side/d.ts', "import { door } from '../high/door';\nimport { b } from '../high/b';\nexport const d = door + b;\n");
    const rules = { low: [], high: ['low'], side: ['low'] };
    expect(uphill(dir, sourceFiles(dir, ['low', 'high', 'side']), rules, { side: ['high/door.ts'] })).toEqual(['low/c.ts → high/b.ts', 'side/d.ts → high/b.ts']);
  });
});
