/**
 * Lays test/ out like the code (docs/architecture.md#tests): `npx tsx scripts/layout-tests.ts`
 * moves every file lying flat in test/ to its place, with `git mv`, and rewrites its imports, its
 * importers, its `__dirname` paths and every mention of its path (scripts/move-modules.ts);
 * `--dry-run` prints the moves only. Run it again after a merge to place new flat files by the
 * same rule:
 *
 * - a unit test (`X.test.ts`) goes to test/<mirror>/, the mirror of the folder of the code it
 *   tests: the folder of the source file it is named after (`git-view.test.ts` →
 *   test/host/sandbox/), else UNIT_HOMES below, else the folder it imports most from (two
 *   levels: `client/run`), else test/house/ (the repository's own checks);
 * - a test on a real dev server (`X.integration.test.ts`) goes to test/integration/<area>/ and
 *   one on the time-skipping test server (`X.time-skipping.test.ts`) to
 *   test/time-skipping/<area>/: the area AREAS below gives it, else the plan kind its name
 *   starts with (task, roadmap, layer, sheet), else the first folder of its unit mirror;
 * - a helper (a .ts in test/ that is not a test) goes to test/support/<group>/ by SUPPORT below,
 *   else to test/support/;
 * - test/cluster/, test/fixtures/ and test/histories/ stay where they are.
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { moveModules } from './move-modules';

const ROOT = resolve(__dirname, '..');
const TEST = join(ROOT, 'test');
/** Folders of code a test may be about, in the order a tie is broken. */
const CODE = ['workflows', 'activities', 'core', 'host', 'store', 'client', 'worker', 'tracing', 'bench', 'scripts'];

/** Where each helper goes, by group: what it helps with. */
const SUPPORT: Record<string, string[]> = {
  // Temporal, the dex CLI and processes: what most integration tests start.
  env: ['dev-server-env.ts', 'dex-cli.ts', 'tree-text.ts', 'dex-environment.ts', 'global-setup.ts', 'worker-process.ts', 'mock-activity.ts', 'plain-git.ts', 'chain-history.ts'],
  // The model: the fake Anthropic server, cassettes and the turns a test scripts.
  model: ['fake-anthropic-server.ts', 'cassette-builder.ts', 'call-model-fixture.ts', 'model-call-turns.ts'],
  // Inputs of each plan kind.
  plans: ['recorded-histories.ts', 'landing-fixture.ts', 'layer-fixtures.ts', 'layer-targets.ts', 'roadmap-fixture.ts', 'sheet-fixtures.ts'],
  // The store contract every back end passes.
  store: ['store-contract.ts', 'store-contract-fixtures.ts', 'store-contract-layers.ts', 'store-contract-memory.ts', 'store-contract-run-records.ts'],
  // Real repositories, registries and what an agent may try.
  projects: ['real-projects.ts', 'real-projects-node.ts', 'real-projects-python.ts', 'real-projects-rust.ts', 'real-projects-verify.ts', 'support-private-registry.ts', 'offline-deps.ts', 'escape-corpus.ts', 'hostile-worktree.ts'],
  // The fake forge (GitHub's API, its checks and git over HTTPS) and a scripted one (issue 40).
  forge: ['fake-forge.ts', 'fake-forge-api.ts', 'fake-forge-ci.ts', 'fake-forge-git.ts', 'scripted-forge.ts'],
  // The house's own checks: the import graph and its exports.
  house: ['import-graph.ts', 'export-use.ts'],
};

/** Unit tests the mirror rule would misplace: they test a tool, a patch or the house, not the file they import most. */
const UNIT_HOMES: Record<string, string> = {
  'activity-table.test.ts': 'house',
  'lint.test.ts': 'house',
  'cli-input.test.ts': 'client',
  'sqlite-open-race.test.ts': 'store/sqlite',
  'call-model-replay.test.ts': 'activities/model',
  'workflow-stack-trace.test.ts': 'worker',
  'workflow-thread-watchdog.test.ts': 'worker',
  'fake-anthropic-server.test.ts': 'support/model',
  'land-pr-cli.test.ts': 'client/config',
};

/** The area of each test on a server: the plan kind or the part of dex it runs end to end. */
const AREAS: Record<string, string[]> = {
  task: [
    'task-workflow', 'checkpoint-crash', 'cancel-during-verify', 'protected-paths', 'oversized-input', 'turn-tools', 'reading-turns',
    'model-stall', 'budget-reservation', 'legibility', 'verify-baseline', 'verify-detected', 'worker-crash',
    'ai-gates', 'gates', 'hand-over', 'planner', 'retries', 'time-skipping-backoffs', 'models-thinking', 'record-errors',
  ],
  roadmap: ['roadmap', 'roadmap-continue-as-new', 'landing', 'landing-branch', 'landing-pr', 'landing-pr-crash', 'memory'],
  'claude-code': ['claude-code', 'claude-code-cli', 'claude-code-crash', 'claude-code-mcp', 'claude-code-record'],
  setup: ['dependency-isolation', 'node-package-managers', 'python-projects', 'rust-projects', 'real-repositories', 'registry-trust'],
  sandbox: ['escape-corpus', 'isolation', 'no-leaks'],
  cli: ['cli-inspect', 'cli-run', 'clean', 'live-view', 'retry-cli', 'upgrade', 'payload-codec', 'tracing', 'webhook-command', 'workflow-hosts'],
  testing: [
    'replay-test', 'replay-test-plans', 'replay-test-sheet-tasks', 'replay-test-waits', 'testing-continue-as-new',
    'testing-layers-and-sheets', 'testing-sheet-tasks', 'testing-your-flows', 'mocha-example',
  ],
};

/** The kind of a test by its name: `unit`, `integration` or `time-skipping`; undefined for a helper. */
function kindOf(name: string): 'unit' | 'integration' | 'time-skipping' | undefined {
  if (name.endsWith('.integration.test.ts')) return 'integration';
  if (name.endsWith('.time-skipping.test.ts')) return 'time-skipping';
  if (name.endsWith('.test.ts')) return 'unit';
  return undefined;
}

/** Every .ts file below the folders of code, relative to the root. */
function codeFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'node_modules' && name !== 'results') walk(path);
      } else if (name.endsWith('.ts')) found.push(relative(ROOT, path));
    }
  };
  for (const dir of CODE) if (existsSync(join(ROOT, dir))) walk(join(ROOT, dir));
  return found;
}

/** The folder (from the root) of the code a test at `file` is about. */
function subjectOf(file: string, code: string[]): string {
  const name = basename(file).replace(/(\.integration|\.time-skipping)?\.test\.ts$/, '');
  const text = readFileSync(file, 'utf8');
  const imported = [...text.matchAll(/from\s+'(\.\.?\/[^']+)'/g)]
    .map((m) => relative(ROOT, resolve(dirname(file), m[1])))
    .filter((path) => CODE.includes(path.split('/')[0]));
  const named = code.filter((path) => basename(path, '.ts') === name);
  if (named.length > 0) {
    const importedNamed = named.find((path) => imported.some((i) => path.startsWith(i)));
    return dirname(importedNamed ?? named.sort()[0]);
  }
  const counts = new Map<string, number>();
  for (const path of imported) {
    const folder = path.split('/').slice(0, 2).join('/');
    const key = existsSync(join(ROOT, folder)) && statSync(join(ROOT, folder)).isDirectory() ? folder : dirname(path);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const rank = (folder: string) => CODE.indexOf(folder.split('/')[0]);
  const best = [...counts].sort((a, b) => b[1] - a[1] || rank(a[0]) - rank(b[0]) || a[0].localeCompare(b[0]))[0];
  return best ? best[0] : 'house';
}

/** Where `name` (a file lying flat in test/) goes, from test/. */
export function homeOf(name: string, code = codeFiles()): string {
  const kind = kindOf(name);
  if (!kind) {
    const group = Object.entries(SUPPORT).find(([, files]) => files.includes(name))?.[0];
    return join('support', group ?? '', name);
  }
  if (kind === 'unit') return join(UNIT_HOMES[name] ?? subjectOf(join(TEST, name), code), name);
  const stem = name.replace(/\.(integration|time-skipping)\.test\.ts$/, '');
  const area =
    Object.entries(AREAS).find(([, stems]) => stems.includes(stem))?.[0] ??
    ['task', 'roadmap', 'layer', 'sheet'].find((kindOfPlan) => stem.startsWith(`${kindOfPlan}-`)) ??
    subjectOf(join(TEST, name), code).split('/')[0];
  return join(kind, area, name);
}

/**
 * `text` of a file moved from `oldDir` to `newDir` with each `join(__dirname, '…', …)` and
 * `resolve(__dirname, '…', …)` made to name the same place: its leading literal segments
 * rewritten, what follows them kept.
 */
export function withDirnameMoved(text: string, oldDir: string, newDir: string): string {
  return text.replace(/\b(join|resolve)\(__dirname((?:,\s*'[^']*')*)/g, (whole, fn: string, literals: string) => {
    const segments = [...literals.matchAll(/'([^']*)'/g)].map((m) => m[1]);
    const target = resolve(oldDir, ...segments);
    const path = relative(newDir, target);
    const parts = path === '' ? [] : path.split('/');
    return `${fn}(__dirname${parts.map((p) => `, '${p}'`).join('')}`;
  });
}

if (require.main === module) {
  const dryRun = process.argv.includes('--dry-run');
  const code = codeFiles();
  const flat = readdirSync(TEST).filter((name) => name.endsWith('.ts') && statSync(join(TEST, name)).isFile());
  const moves: [string, string][] = flat.map((name) => [join('test', name), join('test', homeOf(name, code))]);
  for (const [from, to] of moves) console.log(`${from} → ${to}`);
  if (dryRun) process.exit(0);
  // A flat file merged in after the helpers moved still names them beside it (`./dev-server-env`): point it at test/support/ first.
  for (const name of flat) {
    const path = join(TEST, name);
    const text = readFileSync(path, 'utf8');
    const next = text.replace(/(['"])\.\/([\w-]+)\1/g, (whole, quote: string, helper: string) => {
      if (existsSync(join(TEST, `${helper}.ts`))) return whole;
      const group = Object.entries(SUPPORT).find(([, files]) => files.includes(`${helper}.ts`))?.[0];
      return group ? `${quote}./support/${group}/${helper}${quote}` : whole;
    });
    if (next !== text) writeFileSync(path, next);
  }
  // Quoted whole in a doc (docs/testing-your-flows.md shows its tests as they are): the doc follows the file.
  const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join(ROOT, 'docs', name));
  const before = new Map(moves.map(([from]) => [from, readFileSync(join(ROOT, from), 'utf8')]));
  const rewritten = moveModules(ROOT, moves);
  for (const [from, to] of moves) {
    const path = join(ROOT, to);
    const moved = withDirnameMoved(readFileSync(path, 'utf8'), dirname(join(ROOT, from)), dirname(path));
    writeFileSync(path, moved);
    const old = before.get(from)!;
    for (const doc of docs) {
      const text = readFileSync(doc, 'utf8');
      if (old.length > 200 && text.includes(old.trimEnd())) writeFileSync(doc, text.replace(old.trimEnd(), moved.trimEnd()));
    }
  }
  console.log(`moved ${moves.length} files, rewrote ${rewritten}`);
}
