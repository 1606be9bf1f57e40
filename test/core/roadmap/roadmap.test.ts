import { describe, expect, it } from 'vitest';
import { phasesFor } from '../../../core/task/phases';
import { InvalidInput } from '../../../core/run/invalid-input';
import { parseRoadmap, tickTask } from '../../../core/roadmap/roadmap';
import { compareTaskIds } from '../../../core/roadmap/task-order';

const ROADMAP = `# Roadmap

- [ ] T1: Add a \`sum\` function to src/math.js (weight: trivial)
  Longer description lines, indented under the item.
  A second line.
- [x] T2: Already done — skipped
- [ ] T3: Cover sum with tests (depends: T1) (weight: small)
  * [ ] Nested item without an id (depends: T1, T3) (type: code_modify)
`;

describe('parseRoadmap', () => {
  it('reads ids, titles, descriptions, weights, types, dependencies and ticked boxes at any depth', () => {
    const tasks = parseRoadmap(ROADMAP);
    expect(tasks.map((t) => t.id)).toEqual(['T1', 'T2', 'T3', 'T4']);
    expect(tasks[0]).toMatchObject({
      title: 'Add a `sum` function to src/math.js',
      weight: 'trivial',
      depends: [],
      done: false,
      description: 'Longer description lines, indented under the item.\nA second line.',
    });
    expect(tasks[1]).toMatchObject({ title: 'Already done — skipped', done: true });
    expect(tasks[2]).toMatchObject({ title: 'Cover sum with tests', weight: 'small', depends: ['T1'], description: '' });
    expect(tasks[3]).toMatchObject({ title: 'Nested item without an id', depends: ['T1', 'T3'], type: 'code_modify' });
    expect(phasesFor(tasks[2])).toEqual(['implement', 'test']);
    expect(phasesFor(tasks[3])).toEqual(['read', 'edit', 'test']);
  });

  it('refuses a roadmap without tasks', () => {
    expect(() => parseRoadmap('# nothing to do\n\n- a plain list item\n')).toThrow(/no tasks/);
  });

  it('names a duplicate id, an unknown dependency and every id of a cycle', () => {
    expect(() => parseRoadmap('- [ ] A: one\n- [ ] A: two\n')).toThrow('duplicate id A');
    expect(() => parseRoadmap('- [ ] A: one (depends: Z)\n')).toThrow('A depends on unknown id Z');
    const cycle = '- [ ] A: one (depends: C)\n- [ ] B: two (depends: A)\n- [ ] C: three (depends: B)\n- [ ] D: free\n';
    expect(() => parseRoadmap(cycle)).toThrow(new InvalidInput('dependency cycle: A -> C -> B -> A'));
  });

  it('refuses an unknown weight, naming the line', () => {
    expect(() => parseRoadmap('- [ ] A: one (weight: huge)\n')).toThrow('line 1: unknown weight "huge"');
  });

  it('reads `(attempts: N)` beside the other attributes, and sets it only on the lines that ask (docs/attempts.md#roadmaps)', () => {
    const tasks = parseRoadmap('- [ ] A: one (weight: small) (attempts: 3)\n- [ ] B: two (attempts: 1) (depends: A)\n- [ ] C: three\n');
    expect(tasks[0]).toMatchObject({ title: 'one', weight: 'small', attempts: 3 });
    expect(tasks[1]).toMatchObject({ title: 'two', depends: ['A'], attempts: 1 });
    // A line without it has no such key: tasks as recorded histories hold them stay the same.
    expect('attempts' in tasks[2]).toBe(false);
    expect(JSON.stringify(parseRoadmap(ROADMAP))).not.toContain('attempts');
  });

  it.each(['9', '0', 'three', '2.5', ''])('refuses `(attempts: %s)`, naming the line', (value) => {
    expect(() => parseRoadmap(`- [ ] A: one\n- [ ] B: two (attempts: ${value})\n`, 'ROADMAP.md')).toThrow(
      new InvalidInput(`ROADMAP.md: line 2: attempts "${value}" must be a whole number from 1 (off) to 8`),
    );
  });

  it('ticks exactly the box of the task it lands', () => {
    const ticked = tickTask(ROADMAP, 'T3');
    expect(ticked).toContain('- [x] T3: Cover sum with tests');
    expect(ticked).toContain('- [ ] T1:');
    expect(ticked).toContain('* [ ] Nested item');
    expect(parseRoadmap(ticked).find((t) => t.id === 'T3')!.done).toBe(true);
  });
});

describe('compareTaskIds', () => {
  it('orders ids naturally: digits as numbers, so T2 comes before T10', () => {
    const ids = ['T10', 'T2', 'T1', 'db-10', 'db-9', 'T10a', 'T10b', 'T9', 'T01', 'A', 'T100'];
    expect([...ids].sort(compareTaskIds)).toEqual(['A', 'T01', 'T1', 'T2', 'T9', 'T10', 'T10a', 'T10b', 'T100', 'db-9', 'db-10']);
    // By characters, as landing compared them before: T10 came before T2.
    expect([...ids].sort()).not.toEqual([...ids].sort(compareTaskIds));
  });

  it('is a total order: two different ids never compare equal, and digits of any length compare', () => {
    expect(compareTaskIds('T1', 'T01')).not.toBe(0);
    expect(Math.sign(compareTaskIds('T1', 'T01'))).toBe(-Math.sign(compareTaskIds('T01', 'T1')));
    expect(compareTaskIds('T99999999999999999999', 'T100000000000000000000')).toBeLessThan(0);
    expect(compareTaskIds('T7', 'T7')).toBe(0);
  });
});
