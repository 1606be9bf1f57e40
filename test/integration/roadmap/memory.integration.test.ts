import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../../core/run/run-memory';
import type { RoadmapResult } from '../../../core/roadmap/roadmap-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { roadmapRepo, startRoadmap } from '../../support/plans/roadmap-fixture';

const NOTE = 'Tests run with node --test from the repository root';

const write = (task: string, path: string, summary: string) => [
  toolTurn(task, ['write_file', { path, content: `module.exports = '${task}';\n` }]),
  completionTurn(task, { status: 'complete', summary }),
];

const CASSETTE = [
  // M1 keeps a note through the `remember` tool before it writes.
  toolTurn('M1', ['remember', { note: NOTE }]),
  ...write('M1', 'src/m1.js', 'added m1 as the first module'),
  ...write('M2', 'src/m2.js', 'added m2 next to m1'),
  ...write('M3', 'src/m3.js', 'added m3'),
  ...write('S1', 'src/s1.js', `S1 summary ${'long words '.repeat(12)}`),
  ...write('S2', 'src/s2.js', `S2 summary ${'long words '.repeat(12)}`),
  ...write('S3', 'src/s3.js', 's3 done'),
  ...write('N1', 'src/n1.js', 'n1 done'),
];

const dex = useDexEnvironment({ server: 'dev', cassette: CASSETTE, queue: 'dex-it-memory' });

/** The text of a task's first prompt, as the fake Anthropic server received it. */
const firstPrompt = (task: string): string => JSON.stringify(dex.requestsFor(task)[0].body!.messages);

/** The run memory section of a first prompt: from its heading to the prompt's next part. */
function runSection(task: string): string {
  const text = (dex.requestsFor(task)[0].body!.messages as { content: { text: string }[] }[])[0].content[0].text;
  const start = text.indexOf('\n# What earlier tasks of this roadmap did');
  return start < 0 ? '' : text.slice(start, text.indexOf('\n# How to work'));
}

const CHAIN = (p: string) => `- [ ] ${p}1: First (weight: trivial)\n- [ ] ${p}2: Second (depends: ${p}1) (weight: trivial)\n- [ ] ${p}3: Third (depends: ${p}2) (weight: trivial)\n`;

describe('memory on a real dev server', () => {
  it("gives the third task the first two's files and summaries, and keeps what remember kept for the next run", async () => {
    const repo = roadmapRepo(CHAIN('M'), 'verify: ["node --test"]\n');
    const { handle } = await startRoadmap(dex, repo);
    expect(((await handle.result()) as RoadmapResult).state).toBe('completed');

    const third = runSection('M3');
    expect(third).toMatch(/## M2: Second\n- files: src\/m2.js\n- summary: added m2 next to m1/);
    expect(third).toMatch(/## M1: First\n- files: src\/m1.js\n- summary: added m1 as the first module/);
    expect(third.indexOf('## M2')).toBeLessThan(third.indexOf('## M1'));
    expect(estimateTokens(third)).toBeLessThanOrEqual(2000);
    expect(runSection('M1')).toBe('');
    expect(runSection('M2')).not.toContain('## M2');
    // The note M1 kept, and the verify command that passed, reach later prompts on the repository.
    expect(firstPrompt('M2')).toContain(NOTE);
    expect(firstPrompt('M3')).toContain('node --test');

    // `dex memory` reads the worker's store: it lists the note; a later run's prompt has it.
    const env = { DEX_HOME: dex.worker.dexHome };
    const listed = JSON.parse((await runDex(['memory', '--repo', repo, '--json'], { env })).stdout) as { notes: { id: number; kind: string; text: string }[] };
    const note = listed.notes.find((n) => n.text === NOTE)!;
    expect(note.kind).toBe('note');
    expect(listed.notes.some((n) => n.kind === 'verify' && n.text === 'node --test')).toBe(true);

    writeFileSync(join(repo, 'ROADMAP.md'), '- [ ] N1: Next run (weight: trivial)\n');
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qam', 'next roadmap'], { cwd: repo });
    const next = await startRoadmap(dex, repo);
    expect(((await next.handle.result()) as RoadmapResult).state).toBe('completed');
    expect(firstPrompt('N1')).toContain(NOTE);
    expect(runSection('N1')).toBe(''); // another run: none of M's run memory

    expect((await runDex(['memory', '--repo', repo, '--forget', String(note.id)], { env })).code).toBe(0);
    expect((await runDex(['memory', '--repo', repo], { env })).stdout).not.toContain(NOTE);
  });

  it('keeps the memory section within a small limit: the newest entry in, the older one dropped', async () => {
    const repo = roadmapRepo(CHAIN('S'), 'verify: ["node --test"]\nmemory: { runTokens: 60 }\n');
    const { handle } = await startRoadmap(dex, repo);
    expect(((await handle.result()) as RoadmapResult).state).toBe('completed');
    dex.recordHistory(handle.workflowId, 'roadmap-workflow-memory.json');

    const third = runSection('S3');
    expect(third).toContain('## S2: Second');
    expect(third).not.toContain('## S1');
    expect(estimateTokens(third)).toBeLessThanOrEqual(60);
  });
});
