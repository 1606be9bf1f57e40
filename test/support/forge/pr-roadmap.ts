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
 * the forge, its git trusting the forge's certificate, and the token in this process's
 * environment, where the test's worker reads it. Returns the repository and the checked input.
 */
export async function prRoadmap(dex: DexEnvironment, forge: FakeForge, roadmap: string, token: { env: string; value: string }, pr: string[] = []) {
  const entries = [`apiUrl: "${forge.apiUrl}"`, `tokenEnv: ${token.env}`, 'ciTimeoutMinutes: 60', ...pr];
  const repo = roadmapRepo(roadmap, `verify: ["node --test"]\nland:\n  remote: origin\n  mode: pr\n  pr: { ${entries.join(', ')} }\n`);
  await git(repo, ['push', '-q', forge.httpRemoteUrl, 'main']);
  await git(repo, ['remote', 'add', 'origin', forge.remoteUrl]);
  await forge.trustIn(repo);
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
