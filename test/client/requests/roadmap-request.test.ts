import { describe, expect, it } from 'vitest';
import { forgeWebUi } from '../../../client/requests/roadmap-request';
import { readSettings } from '../../../client/settings';
import type { LandConfig } from '../../../core/roadmap/roadmap-types';

const pr = { mode: 'pr', remote: 'origin', pr: { forge: 'github', tokenEnv: 'GITHUB_TOKEN', owner: 'o', repo: 'r', profile: 'auto', fixAttempts: 2, ciTimeoutMinutes: 60, mergeMethod: 'merge' } } as LandConfig;

describe("the run's Web UI page in what dex writes on the forge", () => {
  const settings = { ...readSettings({}), namespace: 'team' };

  it('is the run page under TEMPORAL_UI_URL for a roadmap landing through pull requests', () => {
    expect(forgeWebUi(pr, settings, 'issue-o-r-7', { TEMPORAL_UI_URL: 'https://temporal.example' })).toEqual({ webUi: 'https://temporal.example/namespaces/team/workflows/issue-o-r-7' });
  });

  it('is left out without TEMPORAL_UI_URL (a forge user cannot open the embedded UI) or without pull requests', () => {
    expect(forgeWebUi(pr, settings, 'x', {})).toEqual({});
    expect(forgeWebUi({ mode: 'push' } as LandConfig, settings, 'x', { TEMPORAL_UI_URL: 'https://temporal.example' })).toEqual({});
  });
});
