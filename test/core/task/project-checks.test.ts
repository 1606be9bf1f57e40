import { describe, expect, it } from 'vitest';
import { blockingChecks, describeChecks, describePickedChecks, resolveChecks } from '../../../core/task/project-checks';

const detected = [
  { name: 'lint', command: 'npm run lint' },
  { name: 'build', command: 'npm run build' },
];

describe('which checks run', () => {
  it('are those detected unless the config turns them off, runs them another way, or adds its own', () => {
    expect(resolveChecks(detected, undefined)).toEqual(detected);
    expect(resolveChecks(detected, {})).toEqual(detected);
    expect(resolveChecks(detected, false)).toEqual([]);
    expect(resolveChecks(detected, { lint: false, build: 'npm run build:fast', format: 'prettier --check .' })).toEqual([
      { name: 'build', command: 'npm run build:fast' },
      { name: 'format', command: 'prettier --check .' },
    ]);
  });

  it('block only when they fail and did not fail on the base too; every view says which', () => {
    const ran = [
      { name: 'lint', command: 'npm run lint', passed: false },
      { name: 'typecheck', command: 'npm run typecheck', passed: false, preExisting: true },
      { name: 'build', command: 'npm run build', passed: true },
    ];
    expect(blockingChecks(ran).map((c) => c.name)).toEqual(['lint']);
    expect(blockingChecks(undefined)).toEqual([]);
    expect(describeChecks(ran)).toBe('lint failed · typecheck failed (fails on the base too, not blocking) · build passed');
    expect(describePickedChecks(detected)).toBe('lint (npm run lint) · build (npm run build)');
    expect(describePickedChecks([])).toBe('none found');
  });
});
