import { ApplicationFailure } from '@temporalio/common';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FAILURE } from '../../core/run/failure-types';
import { InvalidInput } from '../../core/run/invalid-input';
import { parseRoadmap, type RoadmapTask } from '../../core/roadmap/roadmap';
import type { ActivityDeps } from '../deps';
import { heartbeatingWhileRunning } from '../run/local-heartbeat';

/** Reading a roadmap's file from the owner's checkout. */
export const createRoadmapFileActivities = (_deps: ActivityDeps) => heartbeatingWhileRunning({
  /** Reads and parses the roadmap at `roadmapFile` (relative to the repository); a bad roadmap fails at once. */
  async readRoadmap(input: { repoPath: string; roadmapFile: string }): Promise<RoadmapTask[]> {
    try {
      return parseRoadmap(await readFile(join(input.repoPath, input.roadmapFile), 'utf8'));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw ApplicationFailure.create({ message: `${input.roadmapFile}: ${message}`, type: FAILURE.InvalidRoadmap, nonRetryable: err instanceof InvalidInput });
    }
  },
});
