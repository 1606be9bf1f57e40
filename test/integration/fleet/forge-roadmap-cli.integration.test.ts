/**
 * `dex run ROADMAP.md --repo URL` of a forge repository (docs/fleet.md#a-roadmap-on-a-forge-repository), as a
 * user runs it on a laptop, on a dev server with no worker: the command's own worker is the fleet (one task
 * slot, and the fleet's shared work), its two tasks land through pull requests on the fake GitHub, and
 * `dex status` tells the story after the command has exited.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionTurn, toJsonl, toolTurn } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';

const TOKEN = 'fleet-roadmap-cli-token-0123456789';
const dex = useDexEnvironment({ server: 'dev' });
let forge: FakeForge;

beforeAll(async () => {
  forge = await startFakeForge({ token: TOKEN, gitAuth: true, protection: null, checks: [{ name: 'test', command: 'node --test' }] });
  await forge.commit('main', {
    'dex.config.yaml': 'verify: ["node --test"]\nsetup: false\n',
    'package.json': '{ "name": "demo", "private": true }\n',
    'test/ok.test.js': "require('node:test')('ok', () => {});\n",
    'ROADMAP.md': '- [ ] A1: Add one\n- [ ] A2: Add two (depends: A1)\n',
  });
});
afterAll(async () => forge?.close());

describe('a roadmap on a forge repository, from the command line', () => {
  it('runs on the command\'s own worker and lands each task through a pull request; dex status says so afterwards', { timeout: 180_000 }, async () => {
    const cassette = join(mkdtempSync(join(tmpdir(), 'dex-fleet-roadmap-cli-')), 'run.cassette.jsonl');
    writeFileSync(cassette, toJsonl(['A1', 'A2'].flatMap((t) => [toolTurn(t, ['write_file', { path: `src/${t}.js`, content: `exports.${t} = 1;\n` }]), completionTurn(t, { status: 'complete', summary: `${t} done` })])));
    const env: NodeJS.ProcessEnv = { ...dex.cliEnv(), GITHUB_TOKEN: TOKEN, DEX_FORGE_CA_FILE: forge.caFile, DEX_FORGE_API_URL: forge.secureApiUrl, DEX_WORKER_NAME: 'laptop' };
    const repo = `${new URL(forge.remoteUrl).origin}/${forge.owner}/${forge.repo}`;
    const run = await runDex(['run', 'ROADMAP.md', '--repo', repo, '--llm', `replay:${cassette}`], { env, timeoutMs: 170_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('2 tasks in ROADMAP.md, landing on main');
    expect(run.stderr).toContain('one fleet task slot');
    const workflowId = /started (\S+)/.exec(run.stderr)![1];
    // Both landed through merged pull requests, their boxes ticked on the forge's main.
    expect(forge.pulls.map((p) => [p.head, p.merged])).toEqual([['dex/A1', true], ['dex/A2', true]]);
    const roadmap = execFileSync('git', ['show', 'main:ROADMAP.md'], { cwd: forge.bare, encoding: 'utf8' });
    expect(roadmap).toBe('- [x] A1: Add one\n- [x] A2: Add two (depends: A1)\n');
    const status = await runDex(['status', workflowId], { env });
    expect(status.code, status.stderr).toBe(0);
    // Each task's landing commit, as status shows it, is the forge's: the last one is main's head.
    expect(status.stdout).toMatch(/A1 +completed/);
    expect(status.stdout).toContain(`A2       completed  ${(await forge.head('main')).slice(0, 10)}`);
  });
});
