// A roadmap that lands through pull requests on the fake GitHub, set up as its owner would and
// checked as `dex run` checks it (docs/landing-through-prs.md#configuration), for the dev-server tests.
import type { WorkflowHandle } from '@temporalio/client';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { buildRoadmapInput } from '../../../client/requests/roadmap-request';
import { readSettings } from '../../../client/settings';
import type { DexEnvironment } from '../env/dex-environment';
import { roadmapRepo } from '../plans/roadmap-fixture';
import type { FakeForge } from './fake-forge-types';
import { git } from './fake-forge-git';
import { startFakeForge } from './fake-forge';
import { webhook } from './ci-webhook';

/**
 * A roadmap repository whose `origin` is `forge`'s repository and whose dex.config.yaml says
 * `land: { mode: pr }` with `pr` (flow-map entries such as `profile: review`); its main pushed to
 * the forge, the forge's certificate trusted, and the token in this process's environment, where
 * the test's worker reads it. Returns the repository and the checked input. `trust`: as an owner
 * would, in the repository's git config (`http.<url>.sslCAInfo`; the API on plain HTTP), or with
 * dex's own setting, `land.pr.caFile` (docs/landing-through-prs.md#a-forge-behind-its-own-ca; the API over HTTPS too).
 */
export async function prRoadmap(
  dex: DexEnvironment, forge: FakeForge, roadmap: string, token: { env: string; value: string }, pr: string[] = [], trust: 'git config' | 'caFile' = 'git config',
) {
  const where = trust === 'caFile' ? [`apiUrl: "${forge.secureApiUrl}"`, `caFile: "${forge.caFile}"`] : [`apiUrl: "${forge.apiUrl}"`];
  const entries = [...where, `tokenEnv: ${token.env}`, 'ciTimeoutMinutes: 60', ...pr];
  const repo = roadmapRepo(roadmap, `verify: ["node --test"]\nland:\n  remote: origin\n  mode: pr\n  pr: { ${entries.join(', ')} }\n`);
  await git(repo, ['push', '-q', forge.httpRemoteUrl, 'main']);
  await git(repo, ['remote', 'add', 'origin', forge.remoteUrl]);
  if (trust === 'git config') await forge.trustIn(repo);
  process.env[token.env] = token.value;
  const settings = { ...readSettings({}), hostQueue: dex.worker.hostQueue, taskQueue: dex.worker.taskQueue };
  const checked = buildRoadmapInput({ roadmap: join(repo, 'ROADMAP.md'), llm: 'anthropic' }, settings, { ANTHROPIC_API_KEY: 'test-key', [token.env]: token.value });
  return { repo, checked };
}

/**
 * Each test's fake forge and its webhook (`dex webhook`'s signals), stopped after the test, and
 * the token prRoadmap put in this process's environment taken out again.
 */
export function forgePerTest(tokenEnv: string) {
  let forge: FakeForge | undefined;
  let stopHooks = () => {};
  afterEach(async () => {
    stopHooks();
    delete process.env[tokenEnv];
    await forge?.close();
  });
  return {
    start: async (options: Parameters<typeof startFakeForge>[0]): Promise<FakeForge> => (forge = await startFakeForge(options)),
    webhook: (f: FakeForge, handle: WorkflowHandle): void => void (stopHooks = webhook(f, handle)),
  };
}
