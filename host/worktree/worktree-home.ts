/**
 * Where dex keeps its worktrees on a host, in one place: the activities that make them and
 * `dex clean`, which removes what ended runs left there (docs/interfaces.md#dex-clean).
 */
import { join, resolve } from 'node:path';
import { safeName } from '../../core/run/ids';

/** The folder of every worktree dex makes on this host. */
export const worktreesDir = (dexHome: string): string => join(dexHome, 'worktrees');

/** The suffix of the file beside a task's worktree that records the commit it started from. */
export const BASE_FILE_SUFFIX = '.base';

/** Where the base commit of the worktree at `worktreePath` is recorded (next to it, outside the tree). */
export const baseFileFor = (worktreePath: string): string => `${resolve(worktreePath)}${BASE_FILE_SUFFIX}`;

/** What the name of a roadmap's landing worktree starts with (a task's is its workflow id, which never does). */
export const LANDING_WORKTREE_PREFIX = 'land-';

/** The folder name of the detached worktree a landing on a remote builds its commit in. */
export const landingWorktreeName = (landingKey: string): string => `${LANDING_WORKTREE_PREFIX}${safeName(landingKey)}`;
