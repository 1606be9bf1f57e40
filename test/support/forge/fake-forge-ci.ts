// The fake forge's CI (test/support/forge/fake-forge.ts): every commit pushed to a branch, or asked about, gets
// a run of each configured check, `queued` → `in_progress` → `completed` with a conclusion, in a
// fresh checkout of that commit. A re-run is a new check run (a new id) of the same check on the
// same commit, its attempt one more, as GitHub Actions' re-run of a job makes; or, for an app that
// re-runs in place, the same check run (same id) queued again with new times. A check reported as a
// commit status posts its states through the status API instead (it cannot be re-run).

import { spawn } from 'node:child_process';
import { checkout } from './fake-forge-git';

/** One check the fake's CI runs: a function or a shell command, in a fresh checkout of the commit. */
export interface FakeCheck {
  name: string;
  /** What runs the check; `attempt` is 1, then 2 for its first re-run… */
  run?: (checkoutDir: string, attempt: number) => Promise<{ ok: boolean; log: string }>;
  /** Or a shell command (`sh -c`): exit 0 passes; its stdout and stderr are the log. */
  command?: string;
  /**
   * The app reporting it. `github-actions` (the default): a job, re-run through
   * `actions/jobs/{id}/rerun`, its log at `actions/jobs/{id}/logs`; any other: re-requested
   * through `check-runs/{id}/rerequest`, its log in the check run's output text.
   */
  app?: string;
  /** The app re-runs a re-requested check run in place: the same id, queued again, new start and completion times. */
  rerunInPlace?: boolean;
  /** Reported as a commit status (context: its name; pending, then success or failure with the log's last line as description), not a check run. */
  commitStatus?: boolean;
}

/** Posts a commit status, as `POST /repos/{o}/{r}/statuses/{sha}` does. */
type PostStatus = (sha: string, context: string, state: 'pending' | 'success' | 'failure', description?: string) => void;

/** GitHub keeps a status's description to 140 characters: the log's last line, cut there. */
const STATUS_DESCRIPTION = 140;

/** A check run as the fake keeps it (what the API serves is built from this). */
export interface FakeCheckRun {
  id: number;
  name: string;
  headSha: string;
  app: string;
  attempt: number;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: 'success' | 'failure' | null;
  log: string;
  startedAt: string;
  completedAt: string | null;
  /** Reported as a commit status: the API serves no check run for it. */
  commitStatus?: boolean;
}

function shell(command: string, cwd: string): Promise<{ ok: boolean; log: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd } });
    let log = '';
    child.stdout.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr.on('data', (c: Buffer) => (log += c.toString()));
    child.on('close', (code) => resolve({ ok: code === 0, log }));
  });
}

export class FakeCi {
  readonly runs: FakeCheckRun[] = [];
  private nextId = 4_000_001;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly bare: string,
    public checks: FakeCheck[],
    private readonly postStatus: PostStatus = () => {},
  ) {}

  /** Starts each configured check on `sha` that has no run there yet. */
  start(sha: string): void {
    for (const check of this.checks) {
      if (!this.runs.some((r) => r.headSha === sha && r.name === check.name)) this.launch(check, sha, 1);
    }
  }

  /** Runs `id`'s check again on the same commit: a new run, or the same one again for an app that re-runs in place. Undefined when there is no such run. */
  rerun(id: number): FakeCheckRun | undefined {
    const before = this.byId(id);
    const check = before && this.checks.find((c) => c.name === before.name);
    if (!before || !check) return undefined;
    if (check.rerunInPlace) {
      Object.assign(before, { attempt: before.attempt + 1, status: 'queued', conclusion: null, log: '', startedAt: new Date().toISOString(), completedAt: null });
      this.track(check, before);
      return before;
    }
    const attempts = this.runs.filter((r) => r.headSha === before.headSha && r.name === before.name).length;
    return this.launch(check, before.headSha, attempts + 1);
  }

  /** The check run `id` (a check reported as a commit status has none). */
  byId(id: number): FakeCheckRun | undefined {
    return this.runs.find((r) => r.id === id && !r.commitStatus);
  }

  /** The latest run of each check on `sha` (GitHub's `filter=latest`), or every run (`all`); commit statuses are not check runs. */
  onSha(sha: string, filter: 'latest' | 'all' = 'latest'): FakeCheckRun[] {
    const all = this.runs.filter((r) => r.headSha === sha && !r.commitStatus);
    if (filter === 'all') return all;
    const latest = new Map<string, FakeCheckRun>();
    for (const run of all) latest.set(run.name, run);
    return [...latest.values()];
  }

  /** Resolves once no check is running (new ones started meanwhile included). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }

  private launch(check: FakeCheck, sha: string, attempt: number): FakeCheckRun {
    const run: FakeCheckRun = {
      id: this.nextId++, name: check.name, headSha: sha, app: check.app ?? 'github-actions', attempt,
      status: 'queued', conclusion: null, log: '', startedAt: new Date().toISOString(), completedAt: null, ...(check.commitStatus ? { commitStatus: true } : {}),
    };
    this.runs.push(run);
    this.track(check, run);
    return run;
  }

  private track(check: FakeCheck, run: FakeCheckRun): void {
    const done = this.execute(check, run).finally(() => this.running.delete(done));
    this.running.add(done);
  }

  private async execute(check: FakeCheck, run: FakeCheckRun): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    run.status = 'in_progress';
    if (run.commitStatus) this.postStatus(run.headSha, run.name, 'pending', 'running');
    let result: { ok: boolean; log: string };
    try {
      const { dir, remove } = await checkout(this.bare, run.headSha);
      try {
        result = check.run ? await check.run(dir, run.attempt) : check.command ? await shell(check.command, dir) : { ok: true, log: '' };
      } finally {
        await remove();
      }
    } catch (err) {
      result = { ok: false, log: `the check could not run: ${err instanceof Error ? err.message : String(err)}` };
    }
    run.log = result.log;
    run.conclusion = result.ok ? 'success' : 'failure';
    run.status = 'completed';
    run.completedAt = new Date().toISOString();
    const last = result.log.trimEnd().split('\n').at(-1)?.slice(0, STATUS_DESCRIPTION);
    if (run.commitStatus) this.postStatus(run.headSha, run.name, result.ok ? 'success' : 'failure', last || undefined);
  }
}
