import { afterEach, describe, expect, it, vi } from 'vitest';
import { fitWidth, formatElapsed, lastingLines, liveStatusLine, progressLine } from '../../../client/run/progress-lines';
import { LiveProgress, PlainProgress } from '../../../client/run/progress-view';
import { saysWhileWaiting } from '../../../client/run/slow-wait';
import { workerWaitNotice } from '../../../client/run/worker-starvation';
import type { RunStatus } from '../../../core/run/run-types';

/** A task's status: implement, turn 3, editing a file, with what it spent. */
function taskStatus(over: Partial<RunStatus> = {}): RunStatus {
  return {
    kind: 'task',
    state: 'running',
    waitingFor: null,
    current: { taskId: 'fix-sum', phase: 'implement', turn: 3, activity: 'tool:edit_file' },
    tokens: { input: 849, output: 232, cacheRead: 4000, cacheWrite: 1000 },
    costUsd: 0.0139,
    recent: [],
    ...over,
  };
}

describe('the live status line', () => {
  it('shows phase, turn, step, elapsed time, tokens and cost', () => {
    expect(liveStatusLine(taskStatus(), 65_000)).toBe('[fix-sum implement] · turn 3 · tool:edit_file · 1m05s · 5849 in / 232 out · $0.0139');
  });

  it('shows the gate a waiting run waits at, and marks an unconfined run', () => {
    const waiting = taskStatus({ state: 'waiting', sandbox: 'off', waitingFor: { gate: 'blocked', since: '', reason: 'delete the test?' } });
    expect(liveStatusLine(waiting, 3_000)).toBe(
      '[UNSANDBOXED] [fix-sum implement] · turn 3 · waiting at gate "blocked": delete the test? · 3s · 5849 in / 232 out · $0.0139',
    );
  });

  it("says how an ended run ended, not its last activity", () => {
    expect(liveStatusLine(taskStatus({ state: 'completed', current: { taskId: 'fix-sum', phase: 'implement', activity: 'commit' } }), 0)).toBe(
      '[fix-sum implement] · completed · 0s · 5849 in / 232 out · $0.0139',
    );
  });

  it('names the kind of a run that is not a task', () => {
    const roadmap = taskStatus({ kind: 'roadmap', current: { taskId: 'A1', phase: 'test' } });
    expect(liveStatusLine(roadmap, 0)).toMatch(/^\[roadmap A1 test\] · running · 0s/);
  });

  it('names the kind of a run that has no task or phase: never an empty []', () => {
    const sheet = taskStatus({ kind: 'sheet', state: 'completed', current: {} });
    expect(progressLine(sheet)).toBe('[sheet] completed · 5849 in / 232 out · $0.0139');
    expect(progressLine(taskStatus({ kind: 'roadmap', current: { taskId: 'A1' } }))).toMatch(/^\[roadmap A1\] running · /);
  });

  it('never wraps: it is cut to the terminal width', () => {
    const line = liveStatusLine(taskStatus(), 1_000, 40);
    expect(line).toHaveLength(39);
    expect(line.endsWith('…')).toBe(true);
    expect(fitWidth('short', 40)).toBe('short');
  });

  it('reads elapsed time as a person would', () => {
    expect([0, 42_000, 185_000, 3_725_000].map(formatElapsed)).toEqual(['0s', '42s', '3m05s', '1h02m']);
  });
});

describe('lasting events', () => {
  it("keep a task's phase ending and its commit, not its every step", () => {
    const before = taskStatus({ recent: [{ seq: 4, text: 'implement turn 3 tool:edit_file' }] });
    expect(lastingLines(undefined, before, 0)).toEqual({ lines: [], lastSeq: 4 });
    const after = taskStatus({ current: { taskId: 'fix-sum', phase: 'test', turn: 1, activity: 'model' }, commit: 'c0e40f0151aa', branch: 'dex/t-1' });
    expect(lastingLines(before, after, 4).lines).toEqual([
      '[fix-sum] implement ended · now test · 5849 in / 232 out · $0.0139',
      '[fix-sum] test committed c0e40f0151 on dex/t-1',
    ]);
  });

  it("keep every step of a roadmap: its tasks starting and landing are events", () => {
    const s = taskStatus({ kind: 'roadmap', recent: [{ seq: 1, text: 'A1 started (implement)' }, { seq: 2, text: 'A1 landed on main as abc' }] });
    expect(lastingLines(undefined, s, 1).lines).toEqual(['[roadmap] A1 landed on main as abc · 5849 in / 232 out · $0.0139']);
  });
});

/** A terminal that records what was written. */
function terminal(columns = 200) {
  const writes: string[] = [];
  return { writes, stream: { columns, write: (t: string) => writes.push(t) } };
}

describe('LiveProgress on a terminal', () => {
  it('redraws one line in place and prints lasting events above it', () => {
    const { writes, stream } = terminal();
    let now = 10_000;
    const view = new LiveProgress(stream, 0, () => now);
    view.status(taskStatus());
    expect(writes.at(-1)).toBe('\r\x1b[2K[fix-sum implement] · turn 3 · tool:edit_file · 10s · 5849 in / 232 out · $0.0139');
    expect(writes.join('')).not.toContain('\n');

    now = 12_000;
    view.status(taskStatus({ state: 'waiting', waitingFor: { gate: 'blocked', since: '' } }));
    const text = writes.join('');
    // The state change is a line of its own, and the live line is drawn again under it.
    expect(text).toContain('\r\x1b[2K[fix-sum implement] turn 3 waiting at gate "blocked" · 5849 in / 232 out · $0.0139\n');
    expect(writes.at(-1)).toMatch(/^\r\x1b\[2K\[fix-sum implement\] · turn 3 · waiting at gate "blocked" · 12s/);
  });

  it('shows what the command waits for in the live line, and clears it at the end', () => {
    const { writes, stream } = terminal();
    const view = new LiveProgress(stream, 0, () => 0);
    view.note('waiting for a worker on queue dex (4s)…');
    expect(writes.at(-1)).toBe('\r\x1b[2Kwaiting for a worker on queue dex (4s)…');
    view.say('starting a worker in this process');
    expect(writes.join('')).toContain('\r\x1b[2Kstarting a worker in this process\n');
    view.close();
    expect(writes.at(-1)).toBe('\r\x1b[2K');
  });
});

describe('PlainProgress on a pipe', () => {
  it('prints every step once and each state change once, as lines', () => {
    const lines: string[] = [];
    const view = new PlainProgress((l) => lines.push(l));
    const steps = [
      { seq: 1, text: 'implement turn 1 model' },
      { seq: 2, text: 'implement turn 1 tool:read_file' },
    ];
    view.status(taskStatus({ recent: steps }));
    view.status(taskStatus({ recent: steps }));
    view.status(taskStatus({ state: 'waiting', waitingFor: { gate: 'blocked', since: '' }, recent: steps }));
    view.status(taskStatus({ state: 'waiting', waitingFor: { gate: 'blocked', since: '' }, recent: steps }));
    expect(lines).toEqual([
      '[fix-sum] implement turn 1 model',
      '[fix-sum] implement turn 1 tool:read_file · 5849 in / 232 out · $0.0139',
      '[fix-sum implement] turn 3 waiting at gate "blocked" · 5849 in / 232 out · $0.0139',
    ]);
    expect(lines.join('')).not.toMatch(/\r|\x1b/);
  });

  it('repeats a wait that goes on every ten seconds, not every tick', () => {
    const lines: string[] = [];
    let now = 100_000;
    const view = new PlainProgress((l) => lines.push(l), () => now);
    for (const t of [2, 4, 6, 8, 10, 12, 14]) {
      now = 100_000 + t * 1000;
      view.note(`waiting for a worker on queue dex (${t}s)…`);
    }
    expect(lines).toEqual(['waiting for a worker on queue dex (2s)…', 'waiting for a worker on queue dex (12s)…']);
  });
});

describe('waits that say what they wait for', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('says nothing for a wait under two seconds, then what it waits for with the seconds waited', async () => {
    vi.useFakeTimers();
    const said: string[] = [];
    let finish!: (v: string) => void;
    const waited = saysWhileWaiting(new Promise<string>((r) => (finish = r)), 'connecting to the Temporal server at x', (l) => said.push(l));
    await vi.advanceTimersByTimeAsync(1_900);
    expect(said).toEqual([]);
    await vi.advanceTimersByTimeAsync(5_200);
    expect(said).toEqual(['connecting to the Temporal server at x (2s)…', 'connecting to the Temporal server at x (7s)…']);
    finish('ok');
    expect(await waited).toBe('ok');
    await vi.advanceTimersByTimeAsync(20_000);
    expect(said).toHaveLength(2);
  });

  it('names the queue a run waits on for a worker', () => {
    const queues = { taskQueue: 'dex', hostQueue: 'dex@box' };
    expect(workerWaitNotice({ kind: 'workflow', waitingMs: 2_400 }, queues)).toBe('waiting for a worker on queue dex (2s)…');
    expect(workerWaitNotice({ kind: 'activity', waitingMs: 31_000 }, queues)).toBe('waiting for a worker on queue dex@box (31s)…');
  });
});
