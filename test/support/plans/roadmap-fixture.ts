import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildRoadmapInput } from '../../../client/requests/roadmap-request';
import { readSettings } from '../../../client/settings';
import type { RoadmapInput } from '../../../core/roadmap/roadmap-types';
import type { TaskInput } from '../../../core/task/task-types';
import type { DexEnvironment } from '../env/dex-environment';
import { sampleRepo } from '../env/dev-server-env';

/** A sample repository whose tests pass, with a ROADMAP.md and a dex.config.yaml, committed on main. */
export function roadmapRepo(roadmap: string, config: string): string {
  const repo = sampleRepo();
  const math = join(repo, 'src', 'math.js');
  writeFileSync(math, readFileSync(math, 'utf8').replace('return a - b;', 'return a + b;'));
  writeFileSync(join(repo, 'ROADMAP.md'), roadmap);
  writeFileSync(join(repo, 'dex.config.yaml'), config);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo });
  git('add', '-A');
  git('commit', '-q', '-m', 'roadmap');
  return repo;
}

/**
 * Starts `roadmapWorkflow` on the repository's ROADMAP.md as `dex run` would, on the queues of
 * `dex`'s worker; `extra` adds what only tests set (a `historyLimit`, its tasks' `holdSpendingMs`).
 */
export async function startRoadmap(dex: DexEnvironment, repo: string, llm = 'anthropic', extra: Pick<RoadmapInput, 'historyLimit'> & Pick<TaskInput, 'holdSpendingMs'> = {}) {
  const settings = { ...readSettings({}), hostQueue: dex.worker.hostQueue, taskQueue: dex.worker.taskQueue };
  const checked = buildRoadmapInput({ roadmap: join(repo, 'ROADMAP.md'), llm }, settings, { ANTHROPIC_API_KEY: 'test-key' });
  const { holdSpendingMs, ...roadmapExtra } = extra;
  const taskDefaults = holdSpendingMs === undefined ? checked.input.taskDefaults : { ...checked.input.taskDefaults, holdSpendingMs };
  const handle = await dex.start('roadmapWorkflow', checked.workflowId, { ...checked.input, ...roadmapExtra, taskDefaults } satisfies RoadmapInput);
  return { handle, checked };
}

/** The subjects of the commits on `rev`, oldest first. */
export function subjects(repo: string, rev = 'main'): string[] {
  return execFileSync('git', ['log', '--reverse', '--format=%s', rev], { cwd: repo, encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** A file's content in the repository's checkout. */
export function checkoutFile(repo: string, path: string): string {
  return readFileSync(join(repo, path), 'utf8');
}
