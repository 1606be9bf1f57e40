import { describe, expect, it } from 'vitest';
import { DependencyError, dependencyDepths, dependencyPhases, dependentsOf } from '../../../core/roadmap/dependency-phases';

const n = (id: string, ...needs: string[]) => ({ id, needs });

describe('dependency phases', () => {
  it('gives depth 0 to items without dependencies and 1 + the deepest need to the rest', () => {
    const depths = dependencyDepths([n('C', 'B'), n('A'), n('B', 'A'), n('D'), n('E', 'A', 'C')]);
    expect(Object.fromEntries(depths)).toEqual({ A: 0, B: 1, C: 2, D: 0, E: 3 });
  });

  it('groups by depth in original order', () => {
    expect(dependencyPhases([n('T3', 'T2'), n('T1'), n('T2', 'T1'), n('T4'), n('T5')])).toEqual([['T1', 'T4', 'T5'], ['T2'], ['T3']]);
  });

  it('names the ids of a cycle in order', () => {
    const err = (() => {
      try {
        dependencyDepths([n('A'), n('B', 'D'), n('C', 'B'), n('D', 'C')]);
      } catch (e) {
        return e;
      }
    })() as DependencyError;
    expect(err).toBeInstanceOf(DependencyError);
    expect(err.problem).toEqual({ kind: 'cycle', ids: ['B', 'D', 'C'] });
    expect(err.message).toBe('dependency cycle: B -> D -> C -> B');
  });

  it('refuses an unknown dependency and a duplicate id, naming them', () => {
    expect(() => dependencyDepths([n('A', 'Z')])).toThrow('A depends on unknown id Z');
    expect(() => dependencyDepths([n('A'), n('A')])).toThrow('duplicate id A');
    expect(() => dependencyDepths([n('A', 'A')])).toThrow('dependency cycle: A -> A');
  });

  it('finds everything downstream of an item', () => {
    expect(dependentsOf([n('A'), n('B', 'A'), n('C', 'B'), n('D'), n('E', 'D', 'C')], 'A')).toEqual(['B', 'C', 'E']);
  });
});
