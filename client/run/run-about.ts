/**
 * What a run is, in words, from its start: the memo `{ title, repo? }` that `dex list` shows and
 * the static summary the Web UI shows under the run's id. Built by each kind's command from its
 * checked input.
 */
import { basename } from 'node:path';
import { MEMO_FIELD_BYTES, SUMMARY_BYTES, TITLE_BYTES, clipText, encodedBytes } from '../../core/limits/server-limits';
import type { LayerInput } from '../../core/layer/layer-types';
import type { RoadmapTask } from '../../core/roadmap/roadmap';
import type { RoadmapInput } from '../../core/roadmap/roadmap-types';
import type { SheetInput } from '../../core/sheet/sheet-types';
import type { TaskInput } from '../../core/task/task-types';
import { plural } from '../../core/text/plural';
import type { StartMarks } from './run-handles';
import { UNSANDBOXED_WARNING } from './sandbox-choice';

/** A run in words: its title, the repository it works on (a folder name) and a one-line summary. */
export interface RunAbout {
  title: string;
  repo?: string;
  summary: string;
}

/** A task: its title, its repository and its phases. */
export function taskAbout(input: TaskInput): RunAbout {
  const repo = basename(input.repoPath);
  const phases = input.phases?.length ? input.phases : ['implement'];
  const title = clipText(input.title, TITLE_BYTES);
  return { title, repo, summary: `Task "${title}" on ${repo} (${phases.join(', ')})` };
}

/** A rewound task (`dex retry`): the task, and the run and phase it takes up. */
export function retryAbout(input: TaskInput, fromWorkflowId: string, fromPhase: string): RunAbout {
  const task = taskAbout(input);
  return { ...task, summary: `${task.summary}: retry of ${fromWorkflowId} from ${fromPhase}` };
}

/** A roadmap: its file, its repository and how many tasks it has (and how many are ticked already). */
export function roadmapAbout(input: RoadmapInput, tasks: readonly Pick<RoadmapTask, 'done'>[]): RunAbout {
  const repo = basename(input.repoPath);
  const done = tasks.filter((t) => t.done).length;
  const count = `${plural(tasks.length, 'task')}${done ? ` (${done} done already)` : ''}`;
  const file = clipText(input.roadmapFile, TITLE_BYTES);
  return { title: file, repo, summary: `Roadmap ${file} on ${repo}: ${count}, landing on ${input.baseBranch}` };
}

/** A layer: its name and its targets (named, or how they are selected). */
export function layerAbout(input: LayerInput): RunAbout {
  const { targets } = input.layer;
  const name = clipText(input.layer.name, TITLE_BYTES);
  const over =
    'keys' in targets
      ? plural(targets.keys.length, 'target')
      : `the topics with ${targets.select.minMessages}+ messages in ${targets.select.lookbackHours} h${targets.select.limit ? ` (at most ${targets.select.limit})` : ''}`;
  return { title: name, summary: `Layer ${name} over ${over}` };
}

/** A sheet: its name and how many statements it has, in how many phases. */
export function sheetAbout(input: SheetInput): RunAbout {
  const name = clipText(input.name, TITLE_BYTES);
  return {
    title: name,
    summary: `Sheet ${name}: ${plural(input.statements.length, 'statement')} in ${plural(input.phases.length, 'phase')}${input.transaction ? ', as a transaction' : ''}`,
  };
}

/**
 * The memo and static summary a run starts with; an unconfined run says so in both. Each is cut to
 * what the server keeps (core/limits/server-limits.ts), the unconfined warning never.
 */
export function startMarks(about: RunAbout, unsandboxed = false): StartMarks {
  const field = (text: string) => clipText(text, MEMO_FIELD_BYTES);
  const memo: Record<string, unknown> = { title: field(about.title), ...(about.repo ? { repo: field(about.repo) } : {}), ...(unsandboxed ? { sandbox: 'off' } : {}) };
  const warning = unsandboxed ? ` — ${UNSANDBOXED_WARNING}` : '';
  const staticSummary = clipText(about.summary, SUMMARY_BYTES - encodedBytes(warning) + 2) + warning;
  return { memo, staticSummary, staticDetails: RUN_DETAILS };
}

/**
 * The static details of every run, beside its summary on the "User Metadata" tab: where the live
 * view is, since the Web UI's badge says "Running" for a run that waits for a person (docs/webui.md).
 */
export const RUN_DETAILS = [
  '**Current Details** (right) are this run\'s live view: state, cost, tokens and latest steps.',
  'When it waits for you they lead with the gate, the question and the commands that answer it.',
  '`dex list` lists every run that waits, with a link to them here; `dex status ID` shows this run.',
].join('\n');
