import { ApplicationFailure } from '@temporalio/common';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import { FAILURE } from '../../core/run/failure-types';
import { InvalidInput } from '../../core/run/invalid-input';
import { parseRoadmap, type RoadmapTask } from '../../core/roadmap/roadmap';
import type { ActivityDeps } from '../deps';
import { heartbeatingWhileRunning } from '../run/local-heartbeat';
import { landingRepository } from './landing-repository';

/** The roadmap's text: from the owner's checkout, or, on a forge repository, from the base branch as this worker's mirror has it just fetched. */
async function roadmapText(input: { repoPath: string; roadmapFile: string; repo?: ForgeRepository; baseBranch?: string }, dexHome: string): Promise<string> {
  if (!input.repo) return readFile(join(input.repoPath, input.roadmapFile), 'utf8');
  const at = await landingRepository({ repoPath: input.repoPath, remote: input.repo.gitUrl, repo: input.repo }, dexHome);
  return at.gitIn(at.dir).raw(['show', `refs/heads/${input.baseBranch ?? 'HEAD'}:${input.roadmapFile}`]);
}

/** Reading a roadmap's file from the owner's checkout (or a forge repository's base branch). */
export const createRoadmapFileActivities = (deps: ActivityDeps) => heartbeatingWhileRunning({
  /** Reads and parses the roadmap at `roadmapFile` (relative to the repository); a bad roadmap fails at once. */
  async readRoadmap(input: { repoPath: string; roadmapFile: string; repo?: ForgeRepository; baseBranch?: string }): Promise<RoadmapTask[]> {
    try {
      return parseRoadmap(await roadmapText(input, deps.dexHome));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw ApplicationFailure.create({ message: `${input.roadmapFile}: ${message}`, type: FAILURE.InvalidRoadmap, nonRetryable: err instanceof InvalidInput });
    }
  },
});
