import type { ReadyWay } from '../scenarios/b7-worktree-ready';
import type { BenchDoc } from './bench-doc';

/** The section's rows: each way of making a worktree ready, as the table names it. */
const ROWS: [ReadyWay, string][] = [
  ['npmCiEmptyCache', '`npm ci`, empty npm cache (each new worktree without dex)'],
  ['npmCiWarmCache', '`npm ci`, warm npm cache'],
  ['dexCold', 'dex, cold: `npm ci` in the sandbox, then into the cache'],
  ['dexWarm', 'dex, warm: its cache\'s spare, renamed in'],
  ['dexWarmCopy', 'dex, warm without a spare: copied from its cache'],
  ['dexOwner', 'dex, from the owner\'s checkout'],
];

/** Why a copy costs what it costs here: the filesystem, when it is one that creates files slowly. */
const NO_JOURNAL =
  'This VM\'s root filesystem is ext4 without a journal: there ext4 passes over every inode freed in the last 50 minutes before it reuses one, so after the installs and deletions of a test run file creation is slow (perf puts most of a `cp -a` in `recently_deleted` under `__ext4_new_inode`). A copy of this node_modules took 4–5 s there at worst, 0.25 s on a fresh journaled ext4 or on tmpfs (measured by hand on 2026-11-25). That is why the cache keeps a spare: a worktree that takes it creates no file.';
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
    'Warm is fast because nothing is installed: the cache entry of the worktree\'s key (its package.json and package-lock.json, the install command, the node and npm versions) keeps a spare copy beside it, made in the background after each use, and the worktree takes it with a rename: no network, no resolution, no install script, no file created. A worktree that finds no spare (two tasks of one key at once) gets a copy (`cp -a --reflink=auto`: shared extents where the filesystem has reflinks, btrfs or XFS; a plain copy elsewhere): the row below warm. From the owner is a copy without network (the owner\'s node_modules into the worktree and into the cache at once); cold is `npm ci` in the sandbox plus one copy into the cache. Each warm setup here runs once the spare of the setup before it is made, as a long-lived worker makes it between tasks.',
    '',
    `Measured on ${ready.filesystem}. ${ready.filesystem.startsWith('ext4') ? NO_JOURNAL : ''}`.trim(),
    '',
  ];
}
