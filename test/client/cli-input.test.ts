import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDex, type DexRun } from '../support/env/dex-cli';

// The real `dex` binary, spawned. TEMPORAL_ADDRESS is a dead port: a command that got as far
// as connecting would exit 3, so exit 2 proves it stopped at the input check.

const root = resolve(__dirname, '..', '..');
const demoCassette = join(root, 'client', 'demo', 'demo.cassette.jsonl');
const DEAD_SERVER = '127.0.0.1:1';

interface Run extends DexRun {
  /** What the command left in its DEX_HOME (nothing, when nothing was started). */
  dexHomeFiles: string[];
}

let fixtures: string;
let homes = 0;

async function dex(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> {
  const dexHome = join(fixtures, 'homes', String(++homes));
  mkdirSync(dexHome, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    TEMPORAL_ADDRESS: DEAD_SERVER,
    DEX_HOME: dexHome,
    ANTHROPIC_API_KEY: undefined,
    ANTHROPIC_BASE_URL: undefined,
    NODE_OPTIONS: undefined,
    ...extraEnv,
  };
  const run = await runDex(args, { env, cwd: root, timeoutMs: 60_000 });
  return { ...run, dexHomeFiles: readdirSync(dexHome) };
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'user.name=dex test', '-c', 'user.email=test@dex.localhost', ...args], {
    cwd,
    stdio: 'ignore',
  });
}

/** A git repository with one commit, and `files` in it. */
function repoWithCommit(name: string, files: Record<string, string> = {}): string {
  const dir = join(fixtures, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'README.md'), '# fixture\n');
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'start');
  return dir;
}

const paths = {} as Record<
  'plain' | 'noCommits' | 'repo' | 'badConfigRepo' | 'keyToSandboxRepo' | 'claudeCodeRepo' | 'goodRoadmap' | 'badCassette' | 'cycle' | 'unknownDep' | 'noTasks' | 'toolUseNoInput' | 'toolUseNoId',
  string
>;

beforeAll(() => {
  fixtures = mkdtempSync(join(tmpdir(), 'dex-cli-input-'));
  paths.plain = join(fixtures, 'plain');
  mkdirSync(paths.plain);
  paths.noCommits = join(fixtures, 'no-commits');
  mkdirSync(paths.noCommits);
  git(paths.noCommits, 'init', '-q');
  paths.repo = repoWithCommit('repo');
  paths.badConfigRepo = repoWithCommit('bad-config', { 'dex.config.yaml': 'gates:\n  beforePhse: true\n' });
  paths.keyToSandboxRepo = repoWithCommit('key-to-sandbox', { 'dex.config.yaml': 'sandbox:\n  env: [ANTHROPIC_API_KEY]\n' });
  paths.claudeCodeRepo = repoWithCommit('claude-code', { 'dex.config.yaml': 'agent: { implement: claude-code }\n' });
  const roadmap = (text: string, name: string) => join(repoWithCommit(name, { 'ROADMAP.md': text }), 'ROADMAP.md');
  paths.cycle = roadmap('- [ ] A: one (depends: C)\n- [ ] B: two (depends: A)\n- [ ] C: three (depends: B)\n', 'cycle');
  paths.unknownDep = roadmap('- [ ] A: one (depends: Z)\n', 'unknown-dep');
  paths.noTasks = roadmap('# Nothing\n', 'no-tasks');
  paths.goodRoadmap = roadmap('- [ ] A: one\n', 'good-roadmap');
  const goodLine = readFileSync(demoCassette, 'utf8').split('\n')[0];
  paths.badCassette = join(fixtures, 'bad.jsonl');
  writeFileSync(paths.badCassette, `${goodLine}\n\n{"task": "*", "phase": "implement", "response": \n`);
  // The demo's first line, its second block (a tool_use) missing `field`: well-formed JSON, a malformed answer.
  const toolUseWithout = (field: string, name: string) => {
    const line = JSON.parse(goodLine) as { response: { content: Record<string, unknown>[] } };
    delete line.response.content[1][field];
    const file = join(fixtures, name);
    writeFileSync(file, `${goodLine}\n\n${JSON.stringify(line)}\n`);
    return file;
  };
  paths.toolUseNoInput = toolUseWithout('input', 'tool-use-no-input.jsonl');
  paths.toolUseNoId = toolUseWithout('id', 'tool-use-no-id.jsonl');
});

afterAll(() => {
  rmSync(fixtures, { recursive: true, force: true });
});

describe.concurrent('dex rejects bad input with exit 2 before starting anything', () => {
  const cases: [string, () => string[], RegExp][] = [
    ['a missing --repo folder', () => ['task', 'x', '--repo', '/nonexistent'], /repository not found: \/nonexistent/],
    ['a folder that is not a git repository', () => ['task', 'x', '--repo', paths.plain], /not a git repository: .*plain/],
    ['a git repository without commits', () => ['task', 'x', '--repo', paths.noCommits], /no commit yet: .*no-commits/],
    ['an empty title', () => ['task', '', '--repo', paths.repo, '--llm', `replay:${demoCassette}`], /title is empty/],
    ['an unknown --llm', () => ['task', 'x', '--repo', paths.repo, '--llm', 'gpt4'], /unknown --llm "gpt4"/],
    ['a malformed cassette line', () => ['task', 'x', '--repo', paths.repo, '--llm', `replay:${paths.badCassette}`], /bad\.jsonl:3: not valid JSON/],
    ['a missing cassette', () => ['task', 'x', '--repo', paths.repo, '--llm', 'replay:/missing.jsonl'], /cassette not found: \/missing\.jsonl/],
    ['a bad dex.config.yaml', () => ['task', 'x', '--repo', paths.badConfigRepo, '--llm', `replay:${demoCassette}`], /dex\.config\.yaml: "gates\.beforePhse"/],
    ['an unknown --weight', () => ['task', 'x', '--repo', paths.repo, '--weight', 'huge'], /unknown --weight "huge"/],
    ['an unknown option', () => ['task', 'x', '--repo', paths.repo, '--frobnicate'], /--frobnicate/],
    ['an unknown command', () => ['frobnicate', 'x'], /unknown command "frobnicate"/],
    ['no --llm and no ANTHROPIC_API_KEY', () => ['task', 'x', '--repo', paths.repo], /ANTHROPIC_API_KEY/],
    ['a roadmap with a dependency cycle', () => ['run', paths.cycle, '--llm', `replay:${demoCassette}`], /dependency cycle: A -> C -> B -> A/],
    ['a roadmap with an unknown dependency', () => ['run', paths.unknownDep, '--llm', `replay:${demoCassette}`], /A depends on unknown id Z/],
    ['a roadmap without tasks', () => ['run', paths.noTasks, '--llm', `replay:${demoCassette}`], /no tasks/],
    ['a missing roadmap', () => ['run', '/nonexistent/ROADMAP.md'], /roadmap not found/],
    ['a Claude Code phase without the sandbox', () => ['task', 'x', '--repo', paths.claudeCodeRepo, '--llm', `replay:${demoCassette}`, '--unsafe-no-sandbox'], /agent claude-code runs in the sandbox only: drop --unsafe-no-sandbox/],
    ['a config passing the model key into the sandbox', () => ['task', 'x', '--repo', paths.keyToSandboxRepo, '--llm', `replay:${demoCassette}`], /"sandbox\.env" may not pass ANTHROPIC_API_KEY/],
  ];

  it.each(cases)('%s', async (_what, args, message) => {
    const run = await dex(args());
    expect(run.stderr).toMatch(message);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.dexHomeFiles).toEqual([]);
  });

  // A command that takes only options refuses a stray word: `dex server start` would start a server (and hang when one ran); `dex server stop` is a command.
  it.each([['server', 'start'], ['worker', 'now'], ['setup', 'all'], ['demo', 'please'], ['codec-server', 'start'], ['setup-namespace', 'dex'], ['list', 'all'], ['clean', 'everything'], ['memory', 'show']])(
    'dex %s %s: one line naming the stray word, nothing started',
    async (command, word) => {
      const run = await dex([command, word]);
      expect(run.stderr.trim().split('\n')).toEqual([expect.stringContaining(`unexpected argument "${word}": dex ${command}`)]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.dexHomeFiles).toEqual([]);
    },
  );

  it.each([['0'], ['-1'], ['=-1'], ['abc'], ['1.5'], ['']])('dex run --max-tasks %s: one line saying what N must be, nothing started', async (value) => {
    const branches = execFileSync('git', ['branch', '--list'], { cwd: join(paths.goodRoadmap, '..'), encoding: 'utf8' });
    const option = value.startsWith('=') ? [`--max-tasks${value}`] : ['--max-tasks', value];
    const run = await dex(['run', paths.goodRoadmap, '--llm', `replay:${demoCassette}`, ...option]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toBe(`dex: --max-tasks must be a whole number of 1 or more, not "${value.replace(/^=/, '')}"\n`);
    expect(run.stdout).toBe('');
    expect(run.dexHomeFiles).toEqual([]);
    expect(execFileSync('git', ['branch', '--list'], { cwd: join(paths.goodRoadmap, '..'), encoding: 'utf8' })).toBe(branches);
  });

  it.each([
    ['input', () => paths.toolUseNoInput],
    ['id', () => paths.toolUseNoId],
  ])('a cassette whose tool_use has no %s: one line naming its line, and no branch or worktree in the repository', async (field, cassette) => {
    const repo = repoWithCommit(`tool-use-no-${field}`);
    const branches = execFileSync('git', ['branch', '--list'], { cwd: repo, encoding: 'utf8' });
    const run = await dex(['task', 'x', '--repo', repo, '--llm', `replay:${cassette()}`]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toBe(`dex: ${cassette()}:3: response.content[1] (tool_use) has no "${field}"\n`);
    expect(run.stdout).toBe('');
    expect(run.dexHomeFiles).toEqual([]);
    expect(execFileSync('git', ['branch', '--list'], { cwd: repo, encoding: 'utf8' })).toBe(branches);
    expect(execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' }).match(/^worktree /gm)).toHaveLength(1);
  });

  it.each([
    ['task', () => ['task', 'x', '--repo', paths.repo, '--llm', `replay:${demoCassette}`], () => paths.repo],
    ['run', () => ['run', paths.goodRoadmap, '--llm', `replay:${demoCassette}`], () => join(paths.goodRoadmap, '..')],
  ])('dex %s fails closed when no sandbox can be had, in one line naming what to install', async (_command, args, repoOf) => {
    const branches = execFileSync('git', ['branch', '--list'], { cwd: repoOf(), encoding: 'utf8' });
    const run = await dex(args(), { DEX_BWRAP: '/nonexistent/bwrap' });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/no sandbox: bubblewrap is not installed \(install it: apt-get install bubblewrap\).*--unsafe-no-sandbox/);
    expect(run.dexHomeFiles).toEqual([]);
    expect(execFileSync('git', ['branch', '--list'], { cwd: repoOf(), encoding: 'utf8' })).toBe(branches);
  });

  it('prints one JSON document on stdout with --json', async () => {
    const run = await dex(['task', 'x', '--repo', paths.plain, '--json']);
    expect(run.code, run.stderr).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({ error: expect.stringMatching(/not a git repository/), exitCode: 2 });
  });

  it('takes a 100 KB title and description (cut only where the server shows them), and still prints one JSON document', async () => {
    const title = `Fix sum ${'x'.repeat(100 * 1024)}`;
    const run = await dex(['task', title, '--description', 'd'.repeat(100 * 1024), '--repo', paths.repo, '--llm', `replay:${demoCassette}`, '--json']);
    // Past every input check, as far as the dead server: nothing refuses a long title.
    expect(run.code, run.stderr.slice(0, 500)).toBe(3);
    expect(JSON.parse(run.stdout)).toEqual({ error: expect.stringMatching(/unreachable/), exitCode: 3 });
  });

  it('exits 3 when the Temporal server is unreachable', async () => {
    const run = await dex(['status', 'some-id']);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/unreachable at 127\.0\.0\.1:1/);
  });
});

describe.concurrent('DEX_STORE (docs/production.md#the-shared-store)', () => {
  it.each([
    ['messages import', () => ['messages', 'import', join(root, 'client', 'demo', 'demo.cassette.jsonl')]],
    ['insights list', () => ['insights', 'list']],
    ['memory', () => ['memory', '--repo', paths.repo]],
    ['task', () => ['task', 'x', '--repo', paths.repo, '--llm', `replay:${demoCassette}`]],
    ['log', () => ['log', 'some-id']],
    ['worker', () => ['worker']],
  ])('a value dex cannot read stops dex %s with exit 2 in one line, leaving nothing behind', async (_command, args) => {
    const run = await dex(args(), { DEX_STORE: 'mysql://dex:hunter2@db/dex' });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toBe('dex: unknown DEX_STORE "mysql://dex:***@db/dex": use sqlite, sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE\n');
    expect(run.dexHomeFiles).toEqual([]);
  });

  it('a PostgreSQL store out of reach exits 3 in one line, without its password', async () => {
    const run = await dex(['insights', 'list'], { DEX_STORE: 'postgres://dex:hunter2@127.0.0.1:1/dex' });
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toBe('dex: cannot open the PostgreSQL store at postgres://dex:***@127.0.0.1:1/dex: connect ECONNREFUSED 127.0.0.1:1\n');
  });
});

describe.concurrent('an error in an input file is one line naming the file, the line and column, and the problem', () => {
  /** `text` written as `name` in a folder of its own; a dex.config.yaml goes into a repository. */
  function inputFile(name: string, text: string): string {
    const dir = mkdtempSync(join(fixtures, 'input-'));
    if (name === 'dex.config.yaml') {
      git(dir, 'init', '-q');
      writeFileSync(join(dir, 'README.md'), '# fixture\n');
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '-m', 'start');
    }
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  }

  const cases: [string, string, string, (file: string) => string[], (file: string) => string | RegExp][] = [
    [
      'malformed layer YAML',
      'broken.layer.yaml',
      'name: x\ntargets: [a]\nnodes:\n  - { name: f, type: fetch_messages\n',
      (file) => ['layer', file],
      (file) => `${file}:5:1: not valid YAML: Flow map in block collection must be sufficiently indented and end with a }`,
    ],
    [
      'a layer node of an unknown type',
      'ponder.layer.yaml',
      'name: x\ntargets: [a]\nnodes:\n  - name: think\n    type: ponder\n',
      (file) => ['layer', file],
      (file) => new RegExp(`^${escape(file)}:5:11: node "think": unknown node type "ponder"; known types: [a-z_, ]+$`),
    ],
    [
      'malformed sheet YAML',
      'broken.sheet.yaml',
      'statements:\n  - id: a\n    run: shell\n   command: x\n',
      (file) => ['sheet', file],
      (file) => `${file}:4:1: not valid YAML: Sequence item without - indicator`,
    ],
    [
      'a sheet statement with an unknown key',
      'cmd.sheet.yaml',
      'statements:\n  - { id: ok, run: shell, command: x }\n  - { id: a, run: shell, cmd: "echo" }\n',
      (file) => ['sheet', file],
      (file) => `${file}:3:26: statement "a" (statements[1]): unknown key "cmd" (and 1 more problem)`,
    ],
    [
      'malformed dex.config.yaml',
      'dex.config.yaml',
      'maxRetries: 1\n\tverify: []\n',
      (file) => ['task', 'x', '--repo', join(file, '..'), '--llm', `replay:${demoCassette}`],
      () => 'dex.config.yaml:2:1: not valid YAML: Tabs are not allowed as indentation',
    ],
  ];

  it.each(cases)('%s', async (_what, name, text, args, message) => {
    const file = inputFile(name, text);
    const run = await dex(args(file));
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^dex: [^\n]+\n$/);
    const expected = message(file);
    if (typeof expected === 'string') expect(run.stderr).toBe(`dex: ${expected}\n`);
    else expect(run.stderr.trim().slice('dex: '.length)).toMatch(expected);
    expect(run.dexHomeFiles).toEqual([]);
  });
});

/** `text` as a regular expression matching it literally. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
