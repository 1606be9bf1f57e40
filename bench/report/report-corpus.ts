import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { corpusMarkdown } from '../corpus/setup-corpus-report';
import type { CorpusResult } from '../corpus/setup-corpus-project';

/** Where `npm run bench:corpus` keeps its results (bench/setup-corpus.ts). */
const RESULTS = join(__dirname, '..', 'results', 'setup-corpus.json');
/** The corpus's manifest: the projects the results should cover. */
const MANIFEST = join(__dirname, '..', 'setup-corpus.yaml');

/** The manifest's projects that have no result in `projects`: added since the last run. */
function notRun(projects: CorpusResult[], manifest: string): string[] {
  if (!existsSync(manifest)) return [];
  const names = Object.keys((parse(readFileSync(manifest, 'utf8')) as { projects?: Record<string, unknown> } | null)?.projects ?? {});
  return names.filter((name) => !projects.some((p) => p.name === name));
}

/**
 * "Set-up corpus" of docs/performance.md: the last `npm run bench:corpus` run's table, from its
 * own results file (its clones are not in the repository, so `npm run bench` never runs it);
 * nothing when it never ran here.
 */
export function corpusSection(path = RESULTS, manifest = MANIFEST): string[] {
  if (!existsSync(path)) return [];
  const projects = Object.values((JSON.parse(readFileSync(path, 'utf8')) as { projects: Record<string, CorpusResult> }).projects);
  const dates = projects.map((p) => p.ranAt.slice(0, 10)).sort();
  const missing = notRun(projects, manifest);
  return [
    '## Set-up corpus',
    '',
    `Public projects set up with nothing written for them (no \`setup:\`, no \`verify:\`), as a task's setup and verify do it: \`prepareDependencies\` in a fresh worktree of the clone's HEAD with an empty dependency and download cache (cold), again in a second worktree from that cache (warm, once its spare is made), then the verify commands through \`runAgentCommand\` in the warm one, in the bubblewrap sandbox with dex's default limits. Where dex detects no test command the manifest (\`bench/setup-corpus.yaml\`) may give one, so the rest of the run still says whether the project sets up; such a pass is not counted as one with nothing written. A project is excluded only when its suite does not pass here run by hand the owner's way either (the reason is in its row); the headline counts it as a failure all the same, and gives the rate without exclusions beside it. Run ${dates[0]}${dates.at(-1) !== dates[0] ? ` to ${dates.at(-1)}` : ''} by \`npm run bench:corpus -- --corpus=DIR\` (DIR: a folder of \`git clone\`s named as in the manifest; \`--only=a,b\` reruns some, \`--resume\` skips those with results).`,
    ...(missing.length ? ['', `Not run yet: ${missing.length} of the manifest's projects have no result here (${missing.join(', ')}).`] : []),
    '',
    ...corpusMarkdown(projects).trimEnd().split('\n'),
    '',
  ];
}
