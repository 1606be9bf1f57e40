import type { LandConfig } from '../../core/roadmap/roadmap-types';
import { isRecord, knownKeys, type Fail } from './config-section';
import { parsePullRequestSettings, type PullRequestSettings } from './pull-request-config';

const LAND_KEYS = ['remote', 'branch', 'mode', 'finalizeAttempts', 'pr'];

/** `land:` as the file gives it: `pr` still without the repository, which a roadmap's start reads from the remote. */
export type LandSettings = Omit<LandConfig, 'pr'> & { pr?: PullRequestSettings };

/**
 * `land:` and `landCommand:` of dex.config.yaml (docs/roadmaps.md#landing-on-a-remote; `mode: pr`:
 * docs/landing-through-prs.md); `fail` names the key and throws InvalidInput (exit 2). Whether the
 * remote exists, and in `pr` mode which repository it names and whether the token is set, is
 * checked when a roadmap starts (client/requests/roadmap-request.ts).
 */
export function parseLandConfig(land: unknown, landCommand: unknown, fail: Fail): LandSettings | undefined {
  if (land === undefined && landCommand === undefined) return undefined;
  const config: LandSettings = {};
  if (land !== undefined) {
    if (!isRecord(land)) fail('land', 'must be a map with remote, branch, mode, finalizeAttempts and/or pr');
    knownKeys(land, LAND_KEYS, 'land.', fail);
    const name = (key: string) => {
      const v = land[key];
      if (v === undefined) return undefined;
      if (typeof v !== 'string' || !/^[\w.][\w./-]*$/.test(v)) fail(`land.${key}`, 'must be a plain git name (letters, digits, . _ / -)');
      return v;
    };
    config.remote = name('remote');
    config.branch = name('branch');
    if (land.mode !== undefined && !['push', 'branch', 'pr'].includes(land.mode as string)) fail('land.mode', 'must be push, branch or pr');
    config.mode = land.mode as LandConfig['mode'];
    if (land.pr !== undefined && config.mode !== 'pr') fail('land.pr', 'needs land.mode: pr');
    // Every setting has a default: `land: { remote: origin, mode: pr }` alone lands through pull requests on github.com.
    if (config.mode === 'pr') config.pr = parsePullRequestSettings(land.pr, fail);
    if (land.finalizeAttempts !== undefined) {
      if (!Number.isInteger(land.finalizeAttempts) || (land.finalizeAttempts as number) < 1) fail('land.finalizeAttempts', 'must be a positive whole number');
      config.finalizeAttempts = land.finalizeAttempts as number;
    }
    if ((config.branch || config.mode) && !config.remote) fail('land.remote', 'is needed with land.branch or land.mode');
  }
  if (landCommand !== undefined) {
    if (typeof landCommand !== 'string' || !landCommand.trim()) fail('landCommand', 'must be a shell command');
    // It announces a pushed branch (a pull request for it): without one there is nothing to announce, so refused rather than ignored.
    if (config.mode === 'pr') fail('landCommand', 'is for land.mode branch: with mode pr dex opens and merges the pull request itself');
    if (config.mode !== 'branch') fail('landCommand', 'needs land: { remote: …, mode: branch } (it runs after the task branch is pushed)');
    config.command = landCommand;
  }
  return config;
}
