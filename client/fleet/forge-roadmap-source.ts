/**
 * What `dex run ROADMAP.md --repo OWNER/NAME` reads of a forge repository before it starts
 * (docs/fleet.md#a-roadmap-on-a-forge-repository): the roadmap and `dex.config.yaml` at the forge's
 * default branch, from the mirror the client keeps as a worker would, and how its tasks land:
 * through pull requests on that repository, since a fleet has no owner's checkout to land in.
 */
import { readdirSync, rmdirSync } from 'node:fs';
import { dirname, isAbsolute, normalize } from 'node:path';
import { removeTree } from '../../host/worktree/remove-tree';
import type { ForgeRepository } from '../../core/fleet/repo-locator';
import type { LandConfig } from '../../core/roadmap/roadmap-types';
import type { RoadmapTask } from '../../core/roadmap/roadmap';
import { InvalidInput } from '../../core/run/invalid-input';
import { dexGitSync } from '../../host/git/dex-git';
import { ensureMirror } from '../../host/git/repo-mirror';
import { forgeCaBundleFile } from '../../host/forge/forge-ca';
import { parseDexConfig, type DexConfig } from '../config/config-file';
import type { LandSettings } from '../config/land-config';
import { parsePullRequestSettings } from '../config/pull-request-config';

/** A roadmap as a forge repository's default branch has it. */
export interface ForgeRoadmap {
  repo: ForgeRepository;
  config: DexConfig;
  /** The roadmap's path in the repository, as git names it. */
  roadmapFile: string;
  text: string;
  /** The forge's default branch: where the tasks land. */
  baseBranch: string;
  /** The tasks themselves, when no roadmap file holds them (`text` is then empty). */
  tasks?: RoadmapTask[];
}

/** `ROADMAP.md` as typed, as a path inside the repository; one outside it, or absolute, is bad input. */
function pathInRepository(roadmap: string): string {
  const path = normalize(roadmap).replace(/^\.\//, '');
  if (isAbsolute(roadmap) || path.startsWith('..') || path === '.') {
    throw new InvalidInput(`with --repo on a forge, the roadmap is a path inside the repository (such as ROADMAP.md), not "${roadmap}"`);
  }
  return path;
}

/**
 * Reads the roadmap and config at the default branch of `repo`'s mirror in `dexHome` and gives them
 * to `check` (the request's checks); a forge that fails, no such file, or what `check` refuses is
 * one line (exit 2), and a mirror made for it is removed again.
 */
export async function readForgeRoadmap<T>(repo: ForgeRepository, roadmap: string, dexHome: string, check: (forge: ForgeRoadmap) => T, env: NodeJS.ProcessEnv = process.env): Promise<T> {
  const roadmapFile = pathInRepository(roadmap);
  let made: { path: string; created: boolean };
  try {
    made = await ensureMirror(repo, { dexHome, env, caFile: forgeCaBundleFile(repo.caFile) });
  } catch (err) {
    throw new InvalidInput(`--repo ${repo.owner}/${repo.repo}: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    return check(readAtDefaultBranch(repo, roadmapFile, made.path));
  } catch (err) {
    // Bad input leaves nothing behind: a mirror made for this command alone goes with it.
    if (made.created) await removeMadeMirror(made.path, dexHome);
    throw err;
  }
}

/** Removes a mirror this command made, and the folders above it it left empty, up to the DEX_HOME. */
async function removeMadeMirror(path: string, dexHome: string): Promise<void> {
  await removeTree(path);
  for (let dir = dirname(path); dir.startsWith(dexHome) && dir !== dexHome; dir = dirname(dir)) {
    if (readdirSync(dir).length) break;
    rmdirSync(dir);
  }
}

/** The forge's default branch as `mirror` has it, and a file of it (undefined when it has none). */
function defaultBranchOf(mirror: string): { baseBranch: string; show(file: string): string | undefined } {
  const baseBranch = dexGitSync(mirror, ['symbolic-ref', '--short', 'HEAD']).trim();
  const show = (file: string) => {
    try {
      return dexGitSync(mirror, ['show', `refs/heads/${baseBranch}:${file}`]);
    } catch {
      return undefined;
    }
  };
  return { baseBranch, show };
}

function readAtDefaultBranch(repo: ForgeRepository, roadmapFile: string, mirror: string): ForgeRoadmap {
  const { baseBranch, show } = defaultBranchOf(mirror);
  const text = show(roadmapFile);
  if (text === undefined) throw new InvalidInput(`roadmap not found: ${roadmapFile} is not on ${repo.owner}/${repo.repo}'s ${baseBranch}`);
  return { repo, roadmapFile, text, baseBranch, config: parseDexConfig(show('dex.config.yaml') ?? '', mirror) };
}

/**
 * A run of `tasks` that no roadmap file holds (an issue's, docs/forge-triggers.md), with the config
 * at the forge's default branch, read from the mirror in `dexHome`.
 */
export async function forgePlan(repo: ForgeRepository, tasks: RoadmapTask[], dexHome: string, env: NodeJS.ProcessEnv = process.env): Promise<ForgeRoadmap> {
  const { path } = await ensureMirror(repo, { dexHome, env, caFile: forgeCaBundleFile(repo.caFile) });
  const { baseBranch, show } = defaultBranchOf(path);
  return { repo, roadmapFile: '', text: '', baseBranch, tasks, config: parseDexConfig(show('dex.config.yaml') ?? '', path) };
}

/**
 * How a forge roadmap's tasks land: through pull requests on the repository itself, with the
 * forge, token and CA of `--repo`, and the rest of `land.pr` as the config says. A config that
 * asks for another mode is refused (exit 2) rather than ignored.
 */
export function forgeRoadmapLand(land: LandSettings | undefined, repo: ForgeRepository, unconfined: boolean): LandConfig {
  if (land?.mode && land.mode !== 'pr') {
    throw new InvalidInput(`dex.config.yaml: land.mode is ${land.mode}: a roadmap on a forge repository lands through pull requests (land.mode: pr, or leave it out)`);
  }
  if (unconfined) throw new InvalidInput(`a roadmap on a forge repository needs the sandbox: without it the agent's commands would see ${repo.tokenEnv}, the forge token`);
  const settings = land?.pr ?? parsePullRequestSettings(undefined, (key, why) => { throw new InvalidInput(`${key} ${why}`); });
  const { finalizeAttempts, branch } = land ?? {};
  return {
    mode: 'pr',
    remote: repo.gitUrl,
    ...(branch ? { branch } : {}),
    ...(finalizeAttempts ? { finalizeAttempts } : {}),
    pr: { ...settings, forge: 'github', apiUrl: repo.apiUrl, tokenEnv: repo.tokenEnv, owner: repo.owner, repo: repo.repo, ...(repo.caFile ? { caFile: repo.caFile } : {}) },
  };
}
