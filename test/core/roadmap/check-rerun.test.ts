import { describe, expect, it } from 'vitest';
import { failedCheckVerdict, rerunAsked, seenAfterRerun } from '../../../core/roadmap/check-rerun';
import type { CheckStatus } from '../../../core/roadmap/pull-request-types';

const failed = (extra: Partial<CheckStatus> = {}): CheckStatus => ({ name: 'lint', state: 'failed', id: '41', startedAt: '2026-01-01T10:00:00Z', completedAt: '2026-01-01T10:01:00Z', ...extra });

describe('what a failed check read while waiting for CI means', () => {
  it('a first failure is re-run; a commit status, which cannot be, fails at once', () => {
    expect(failedCheckVerdict(failed(), undefined)).toBe('rerun');
    expect(failedCheckVerdict(failed({ id: 'status:abc:9', rerunnable: false }), undefined)).toBe('failed');
  });

  it('a re-run under a new id (a GitHub Actions job) that fails counts; the run re-run, still reported, is stale', () => {
    const asked = rerunAsked(failed());
    expect(failedCheckVerdict(failed({ id: '42', startedAt: '2026-01-01T10:02:00Z', completedAt: '2026-01-01T10:03:00Z' }), asked)).toBe('failed');
    expect(failedCheckVerdict(failed(), asked)).toBe('stale');
  });

  it('a run re-run in place (same id) is told by the forge\'s times, or by having been seen pending since', () => {
    const asked = rerunAsked(failed());
    expect(asked).toEqual({ id: '41', startedAt: '2026-01-01T10:00:00Z', completedAt: '2026-01-01T10:01:00Z' });
    expect(failedCheckVerdict(failed({ startedAt: '2026-01-01T10:02:00Z', completedAt: '2026-01-01T10:03:00Z' }), asked)).toBe('failed');
    // Started after the failure it re-runs, completed in the same second (the forge's times are to the second).
    expect(failedCheckVerdict(failed({ startedAt: '2026-01-01T10:01:00Z' }), asked)).toBe('failed');
    const restarted = seenAfterRerun(seenAfterRerun(asked, 'passed'), 'pending');
    expect(restarted).toEqual({ ...asked, restarted: true });
    expect(failedCheckVerdict(failed(), restarted)).toBe('failed');
  });

  it('without times (a history recorded before checks carried them), the same id stays stale, as it did then', () => {
    const asked = rerunAsked(failed({ startedAt: undefined, completedAt: undefined }));
    expect(asked).toEqual({ id: '41' });
    expect(failedCheckVerdict(failed(), asked)).toBe('stale');
    expect(failedCheckVerdict(failed(), seenAfterRerun(asked, 'pending'))).toBe('stale');
    expect(failedCheckVerdict(failed({ id: '42' }), asked)).toBe('failed');
  });
});
