import type { ReadyWay } from './b7-worktree-ready';
import type { BenchDoc } from './write-report';

/** The section's rows: each way of making a worktree ready, as the table names it. */
const ROWS: [ReadyWay, string][] = [
  ['npmCiEmptyCache', '`npm ci`, empty npm cache (each new worktree without dex)'],
  ['npmCiWarmCache', '`npm ci`, warm npm cache'],
  ['dexCold', 'dex, cold: `npm ci` in the sandbox, then into the cache'],
  ['dexWarm', 'dex, warm: from its cache'],
  ['dexOwner', 'dex, from the owner\'s checkout'],
];

/** This section on this VM's root filesystem, measured by hand on 2026-11-25 (`npx tsx bench/run.ts --only=ready`, TMPDIR unset): way, median ms, each run's ms. */
const ROOT_FS: [ReadyWay, number, number[]][] = [
  ['npmCiEmptyCache', 10693, [10693, 8642, 15054]],
  ['npmCiWarmCache', 8676, [6226, 8676, 14776]],
  ['dexCold', 9851, [6729, 9851, 14312]],
  ['dexWarm', 2487, [397, 2487, 2634]],
  ['dexOwner', 8545, [7280, 8545, 9036]],
];

/** Why copies cost ten times more on a filesystem like this VM's root, with those figures. */
const NO_JOURNAL: string[] = [
  'On 2026-11-25 this section ran with TMPDIR on a fresh journaled ext4 (a loop-mounted image, `/dev/loop0`): this VM\'s root filesystem is ext4 without a journal, and there ext4 passes over every inode freed in the last 50 minutes before it reuses one, so after the installs and deletions of a few runs file creation is slow (perf puts most of a `cp -a` in `recently_deleted` under `__ext4_new_inode`): one `cp -a` of this node_modules took 4–5 s there, 0.25 s on the journaled ext4 or on tmpfs. The section on the root filesystem the same day (other tests ran on the machine part of the time; the first warm copy still took 0.4 s):',
  '',
  '| way | median ms | each run ms |',
  '|---|---:|---|',
  ...ROOT_FS.map(([way, median, runs]) => `| ${ROWS.find(([w]) => w === way)![1]} | ${median} | ${runs.join(', ')} |`),
  '',
];

/** Why a warm npm cache may not make `npm ci` faster, when it did not in this run (measured by hand on 2026-11-25). */
function npmCacheNote(m: Record<ReadyWay, number>): string {
  if (m.npmCiWarmCache < 0.9 * m.npmCiEmptyCache) return '';
  return ' The npm cache saved nothing here: `npm ci` spends its time unpacking and writing files, not downloading (one with a warm cache used 8 CPU-seconds, user and system, in 5.5 s on this machine\'s 2 cores).';
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const met = (ok: boolean) => (ok ? 'met' : '**not met**');
const fraction = (x: number) => `${x.toFixed(3)} (1/${Math.round(1 / x)})`;

/** "Worktree ready time": the ways side by side, the targets, and how it is measured. */
export function readySection(doc: BenchDoc): string[] {
  const { ready } = doc;
  if (!ready?.medianMs) return [];
  const { medianMs: m, warmVsNpmCi } = ready;
  return [
    '## Worktree ready time (issue 24)',
    '',
    `An npm project whose package-lock.json lists ${ready.packages} packages (\`bench/ready-project.ts\`: jest 29.7.0 and eslint 8.57.0 as devDependencies, the lockfile committed), made ready in a fresh \`git worktree add\`: node_modules then holds ${ready.nodeModules.packages} of them (the rest are for other platforms), ${ready.nodeModules.entries} files and folders, ${ready.nodeModules.mib} MiB. Every way in the same run, median of ${ready.runs} runs:`,
    '',
    '| way | median ms | / `npm ci` (empty npm cache) | each run ms |',
    '|---|---:|---:|---|',
    ...ROWS.map(([way, name]) => `| ${name} | ${m[way]} | ${(m[way] / m.npmCiEmptyCache).toFixed(3)} | ${ready.samplesMs[way].join(', ')} |`),
    '',
    '| target | this run | |',
    '|---|---|---|',
    `| warm ≤ 2 s | ${seconds(m.dexWarm)} | ${met(m.dexWarm <= 2000)} |`,
    `| warm ≤ 1/10 of \`npm ci\` (empty npm cache) | ${fraction(warmVsNpmCi.emptyCache)} | ${met(warmVsNpmCi.emptyCache <= 0.1)} |`,
    `| warm ≤ 1/10 of \`npm ci\` (warm npm cache) | ${fraction(warmVsNpmCi.warmCache)} | ${met(warmVsNpmCi.warmCache <= 0.1)} |`,
    '',
    `Each figure is the install or setup alone (\`git worktree add\` took ${ready.worktreeAddMs} ms more), on ${ready.filesystem}. \`npm ci --no-audit --no-fund\` runs on the host as a user runs it, first with an empty npm cache, then again in a new worktree with that cache; the first is what each worktree costs without dex, the second the fairer comparison.${npmCacheNote(m)} dex's \`prepareDependencies\` runs cold with an empty dependency cache and download folder (\`npm ci\` in the bubblewrap sandbox, through dex's egress proxy to registry.npmjs.org, then stored in the cache), warm from that cache in another worktree, and, once the owner's checkout has its own node_modules (\`npm ci\` there, untimed), from the owner with an empty cache again. The section checks that each setup came from where it should (installed, cache, owner) and that every worktree ends with jest and eslint in node_modules/.bin.`,
    '',
    'Warm is fast because nothing is installed: the cache entry of the worktree\'s key (its package.json and package-lock.json, the install command, the node and npm versions) is copied in with `cp -a --reflink=auto`: no network, no resolution, no install scripts, only files (shared extents where the filesystem has reflinks, btrfs or XFS; a plain copy elsewhere). From the owner is the same without network, with one copy more (the owner\'s node_modules into the cache, then into the worktree); cold is `npm ci` plus the sandbox and one copy into the cache.',
    '',
    ...NO_JOURNAL,
  ];
}
