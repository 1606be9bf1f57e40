/**
 * `dex task --repo URL` of a forge repository (docs/fleet.md#a-task-on-a-forge-repository), as a user runs it,
 * on a dev server with no worker: the command's own worker takes the fleet's one task slot, mirrors the
 * repository (the fake GitHub: a real bare repository over HTTPS with its own CA), works in a worktree of the
 * mirror, and records the worktree on the forge's hidden ref; the config is the forge's, read at its default branch.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskStateRef } from '../../../core/run/ids';
import { completionTurn, toJsonl, toolTurn } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { allText } from '../../support/env/tree-text';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';

const TOKEN = 'fleet-cli-token-0123456789-abcdef';
const dex = useDexEnvironment({ server: 'dev' });
let forge: FakeForge;

beforeAll(async () => {
  forge = await startFakeForge({ token: TOKEN, gitAuth: true, protection: null });
  await forge.commit('main', {
    'dex.config.yaml': 'verify: ["node --test"]\nsetup: false\n',
    'package.json': '{ "name": "demo", "private": true }\n',
    'test/one.test.js': "const test = require('node:test');\ntest('one', () => require('node:assert').equal(require('../src/one.js').one(), 1));\n",
  });
});
afterAll(async () => forge?.close());

describe('a task on a forge repository, from the command line', () => {
  it('runs on the fleet (here the command itself), from a mirror, its worktree recorded on the forge', { timeout: 120_000 }, async () => {
    const cassette = join(mkdtempSync(join(tmpdir(), 'dex-fleet-cli-')), 'run.cassette.jsonl');
    writeFileSync(cassette, toJsonl([toolTurn('*', ['write_file', { path: 'src/one.js', content: 'exports.one = () => 1;\n' }]), completionTurn('*', { status: 'complete', summary: 'added one' })]));
    const env: NodeJS.ProcessEnv = { ...dex.cliEnv(), GITHUB_TOKEN: TOKEN, DEX_FORGE_CA_FILE: forge.caFile, DEX_WORKER_NAME: "laptop" };
    const repo = `${new URL(forge.remoteUrl).origin}/${forge.owner}/${forge.repo}`;
    const run = await runDex(['task', 'Add one', '--repo', repo, '--llm', `replay:${cassette}`, '--json'], { env, timeoutMs: 110_000 });
    expect(run.code, run.stderr).toBe(0);
    const { workflowId, state, result } = JSON.parse(run.stdout) as { workflowId: string; state: string; result: { commit: string; worker: string } };
    expect(state).toBe('completed');
    expect(result.worker).toBe('laptop');
    const commit = result.commit;
    // The task's commit, made in a worktree of the command's mirror, is on the forge under the run's hidden ref.
    const git = (...args: string[]) => execFileSync('git', args, { cwd: forge.bare, encoding: 'utf8' }).trim();
    expect(git('rev-parse', `${taskStateRef(workflowId)}^`)).toBe(commit);
    expect(git('show', `${commit}:src/one.js`)).toBe('exports.one = () => 1;');
    // `dex status` after the command exited names the worker it ran on.
    expect((await runDex(['status', workflowId], { env })).stdout).toContain('worker: laptop');
    // The token is in nothing the command kept: its mirror, worktrees, store and logs.
    expect(allText(env.DEX_HOME!).includes(TOKEN)).toBe(false);
  });
});
