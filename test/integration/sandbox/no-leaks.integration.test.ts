/**
 * Nothing leaks (docs/security.md#redaction): a task on a repository whose remote URL and
 * credential helper hold tokens, run by a worker with secrets in its environment (one passed to
 * the agent through `sandbox.env`, one to setup through `setup.env`), whose agent prints them all.
 * No token may be in any tool result, the store, the history, `dex log`, `dex status`, the
 * recorded cassette or what the model was sent.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixSumTurns, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { sampleRepo } from '../../support/env/dev-server-env';
import { runDex } from '../../support/env/dex-cli';
import { startFakeAnthropic, type FakeAnthropic } from '../../support/model/fake-anthropic-server';
import { allText } from '../../support/env/tree-text';

const testEnv = useDexEnvironment({ server: 'dev' });

const TOKENS = {
  remote: 'ghp_remoteTOKEN0123456789abcdefghijklmn',
  helper: 'helper-password-9d1e77',
  agentEnv: 'agent-visible-secret-31a4',
  setupEnv: 'setup-only-secret-77b2',
};

let fake: FakeAnthropic;
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

beforeAll(async () => {
  fake = await startFakeAnthropic({
    cassette: [
      toolTurn('*', [
        'run_command',
        {
          command: [
            'git remote -v',
            'git config --list',
            'cat .git',
            'cat "$(git rev-parse --git-common-dir)/config"',
            "printf 'protocol=https\\nhost=git.example.com\\n\\n' | git credential fill",
            'env',
            'echo "agent sees $GITHUB_TOKEN"',
          ].map((c) => `${c} 2>&1`).join('; '),
        },
      ]),
      ...fixSumTurns('*'),
    ],
  });
});
afterAll(() => fake?.close());

describe('secrets never reach the agent, the store or history', () => {
  it('a task that prints every credential of its repository and worker stores and sends none of them', async () => {
    const repo = sampleRepo();
    git(repo, 'remote', 'add', 'origin', `https://x-access-token:${TOKENS.remote}@git.example.com/acme/math.git`);
    git(repo, 'config', 'credential.helper', `!f() { echo username=x; echo password=${TOKENS.helper}; }; f`);
    writeFileSync(
      join(repo, 'dex.config.yaml'),
      'verify:\n  - node --test\nmaxIterations: 10\nsandbox:\n  env: [GITHUB_TOKEN]\nsetup:\n  commands: ["echo setup uses $REGISTRY_LOGIN"]\n  env: [REGISTRY_LOGIN]\n',
    );
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-q', '-m', 'config');
    const envVars: NodeJS.ProcessEnv = { ...testEnv.cliEnv(), ANTHROPIC_API_KEY: 'test-key-0001', ANTHROPIC_BASE_URL: fake.url, GITHUB_TOKEN: TOKENS.agentEnv, REGISTRY_LOGIN: TOKENS.setupEnv };
    const cassette = join(mkdtempSync(join(tmpdir(), 'dex-leak-')), 'recorded.jsonl');

    const run = await runDex(['task', 'Fix sum', '--repo', repo, '--llm', `record:${cassette}`, '--json'], { env: envVars });
    expect(run.code, run.stderr).toBe(0);
    const id = JSON.parse(run.stdout).workflowId as string;

    // The agent did see redacted text where the tokens were: the remote without its user, the variable's marker.
    const toolResults = fake.requests.map((r) => JSON.stringify(r.body)).join('\n');
    expect(toolResults).toContain('https://git.example.com/acme/math.git');
    expect(toolResults).toContain('agent sees [REDACTED:GITHUB_TOKEN]');

    const places: Record<string, string> = {
      'model requests': toolResults,
      'the store and DEX_HOME': allText(envVars.DEX_HOME!),
      history: await testEnv.temporal('workflow', 'show', '--workflow-id', id, '-o', 'json'),
      'dex log': (await runDex(['log', id], { env: envVars })).stdout,
      'dex status': (await runDex(['status', id, '--json'], { env: envVars })).stdout,
      'recorded cassette': readFileSync(cassette, 'utf8'),
      'command output': run.stdout + run.stderr,
    };
    for (const [place, text] of Object.entries(places)) {
      for (const [name, token] of Object.entries(TOKENS)) expect(text.includes(token), `${name} token in ${place}`).toBe(false);
    }
    expect(places['the store and DEX_HOME']).toContain('setup uses [REDACTED:REGISTRY_LOGIN]');
  });
});
