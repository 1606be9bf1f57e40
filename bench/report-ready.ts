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
    `An npm project that installs ${ready.packages} packages (\`bench/ready-project.ts\`: jest 29.7.0 and eslint 8.57.0 as devDependencies, its package-lock.json committed; node_modules ${ready.nodeModules.entries} files and folders, ${ready.nodeModules.mib} MiB) made ready in a fresh \`git worktree add\`, every way in the same run, median of ${ready.runs} runs:`,
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
    `Each figure is the install or setup alone (\`git worktree add\` took ${ready.worktreeAddMs} ms more), on ${ready.filesystem}. \`npm ci --no-audit --no-fund\` runs on the host as a user runs it, first with an empty npm cache, then again in a new worktree with that cache; the first is what each worktree costs without dex, the second the fairer comparison. dex's \`prepareDependencies\` runs cold with an empty dependency cache and download folder (\`npm ci\` in the bubblewrap sandbox, through dex's egress proxy to registry.npmjs.org, then stored in the cache), warm from that cache in another worktree, and, once the owner's checkout has its own node_modules (\`npm ci\` there, untimed), from the owner with an empty cache again. The section checks that each setup came from where it should (installed, cache, owner) and that every worktree ends with jest and eslint in node_modules/.bin.`,
    '',
    'Warm is fast because nothing is installed: the cache entry of the worktree\'s key (its package.json and package-lock.json, the install command, the node and npm versions) is copied in with `cp -a --reflink=auto`: no network, no resolution, no install scripts, only files (shared extents where the filesystem has reflinks, btrfs or XFS; a plain copy elsewhere). From the owner is the same without network, with one copy more (the owner\'s node_modules into the cache, then into the worktree); cold is `npm ci` plus the sandbox and one copy into the cache.',
    '',
    ...NO_JOURNAL,
  ];
}

/**
 * The same section on this VM's root filesystem, measured by hand on 2026-11-25 (`npx tsx bench/run.ts --only=ready`,
 * TMPDIR unset): its ext4 has no journal, and there ext4 passes over every inode freed in the last 50 minutes before it
 * reuses one, so file creation slows after many deletions; a perf profile of `cp -a` put most of its time in
 * `recently_deleted` under `__ext4_new_inode`.
 */
const NO_JOURNAL: string[] = [
  'On this VM\'s root filesystem (ext4 without a journal) the copies are much slower: there ext4 looks at each inode freed in the last 50 minutes before it reuses one (`recently_deleted` in `__ext4_new_inode`, most of a `cp -a` profile), so after the installs and deletions of a few runs one `cp -a` of node_modules took 4–5 s instead of 0.25 s on a fresh journaled ext4 or tmpfs. The section run there on 2026-11-25, medians of 3:',
  '',
  '| way | median ms |',
  '|---|---:|',
];
