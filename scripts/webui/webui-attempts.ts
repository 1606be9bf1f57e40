/** The best-of-3 task scripts/webui/webui-screenshots.ts photographs (docs/attempts.md): its cassette and its run. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSampleRepo } from '../../client/demo/sample-repo';

/**
 * The cassette of a best-of-3 task (docs/attempts.md) titled "Fix sum": A fixes sum and adds 20
 * lines of notes, B breaks the module (and gives up after verify fails), C fixes it in one line.
 */
function attemptsLines(): string {
  let n = 0;
  const answer = (task: string, content: unknown[], stop: string) =>
    JSON.stringify({
      task,
      phase: '*',
      response: {
        id: `msg_screens_best_${++n}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content, stop_reason: stop, stop_sequence: null,
        usage: { input_tokens: 1300 + 40 * n, output_tokens: 70 + n, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    });
  const edit = (task: string, replacement: string) =>
    answer(task, [{ type: 'tool_use', id: `toolu_screens_best_${n + 1}`, name: 'edit_file', input: { path: 'src/math.js', old_string: 'return a - b;', new_string: replacement } }], 'tool_use');
  const done = (task: string, summary: string) => answer(task, [{ type: 'text', text: `Done.\n\n\`\`\`json\n${JSON.stringify({ status: 'complete', summary })}\n\`\`\`` }], 'end_turn');
  const notes = Array.from({ length: 20 }, (_, i) => `  // step ${i + 1} of adding`).join('\n');
  return [
    edit('fix-sum-A', `${notes}\n  return a + b;`), done('fix-sum-A', 'sum adds, with notes'),
    edit('fix-sum-B', 'return a - b +;'), done('fix-sum-B', 'fixed'), done('fix-sum-B', 'fixed, surely'), done('fix-sum-B', 'fixed, really'),
    edit('fix-sum-C', 'return a + b;'), done('fix-sum-C', 'sum adds'),
  ].join('\n') + '\n';
}

/** Runs `dex task "Fix sum" --attempts 3` on a sample repository under `work`, with `dex` (the script's `dex … --json`); returns its run id. */
export async function attemptsTask(work: string, dex: (args: string[]) => Promise<Record<string, unknown>>): Promise<string> {
  const repo = join(work, 'best', 'math');
  createSampleRepo(repo);
  const cassette = join(work, 'best.cassette.jsonl');
  writeFileSync(cassette, attemptsLines());
  const run = await dex(['task', 'Fix sum', '--attempts', '3', '--repo', repo, '--llm', `replay:${cassette}`]);
  if (run.state !== 'completed') throw new Error(`the best-of-3 task ended ${String(run.state)}`);
  return String(run.workflowId);
}
