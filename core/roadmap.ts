import { DependencyError, dependencyDepths } from './dependency-phases';

/** The weights a task may have (contract §4). */
export const WEIGHTS = ['trivial', 'small', 'medium', 'large'] as const;
/** A task's weight: how many phases it goes through. */
export type Weight = (typeof WEIGHTS)[number];

/** One task of a ROADMAP.md. */
export interface RoadmapTask {
  id: string;
  title: string;
  /** The lines indented under the item, dedented. */
  description: string;
  weight?: Weight;
  /** A task type whose step pattern replaces the weight's phases (code_modify, code_create, research). */
  type?: string;
  depends: string[];
  /** True when the box is already ticked: the task is skipped. */
  done: boolean;
  /** 1-based line of the item, for messages and for ticking its box. */
  line: number;
}

/** A roadmap that cannot run; the message names the line or the ids. */
export class RoadmapError extends Error {
  override name = 'RoadmapError';
}

const ITEM = /^(\s*)[-*+]\s+\[([ xX])\]\s+(.*)$/;
const ID_PREFIX = /^([A-Za-z][\w.-]*):\s+/;
const ATTRIBUTE = /\s*\((weight|depends|type):\s*([^)]*)\)/g;

function parseAttributes(text: string, line: number): { rest: string; weight?: Weight; type?: string; depends: string[] } {
  let weight: Weight | undefined;
  let type: string | undefined;
  let depends: string[] = [];
  const rest = text.replace(ATTRIBUTE, (_m, key: string, value: string) => {
    const v = value.trim();
    if (key === 'weight') {
      if (!(WEIGHTS as readonly string[]).includes(v)) {
        throw new RoadmapError(`line ${line}: unknown weight "${v}" (use ${WEIGHTS.join(', ')})`);
      }
      weight = v as Weight;
    } else if (key === 'type') {
      type = v;
    } else {
      depends = v.split(',').map((d) => d.trim()).filter(Boolean);
    }
    return '';
  });
  return { rest: rest.trim(), weight, type, depends };
}

/**
 * Parses a ROADMAP.md (contract §4): GitHub task-list items at any depth are tasks; the id
 * is the `ID:` prefix, else `T<n>` by order; `(weight: …)`, `(type: …)` and `(depends: …)`
 * are attributes. Throws RoadmapError for no tasks, a duplicate id, an unknown dependency
 * or a cycle, naming the ids.
 */
export function parseRoadmap(markdown: string): RoadmapTask[] {
  const lines = markdown.split('\n');
  const tasks: RoadmapTask[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = ITEM.exec(lines[i]);
    if (!m) continue;
    const [, indent, box, text] = m;
    const prefix = ID_PREFIX.exec(text);
    const id = prefix ? prefix[1] : `T${tasks.length + 1}`;
    const { rest, weight, type, depends } = parseAttributes(prefix ? text.slice(prefix[0].length) : text, i + 1);
    const description: string[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const l = lines[j];
      if (ITEM.test(l) || (l.trim() && l.search(/\S/) <= indent.length)) break;
      description.push(l);
    }
    const body = description.join('\n').replace(/\s+$/, '');
    const margin = Math.min(...body.split('\n').filter((l) => l.trim()).map((l) => l.search(/\S/)), Infinity);
    tasks.push({
      id,
      title: rest || id,
      description: body.split('\n').map((l) => l.slice(Number.isFinite(margin) ? margin : 0)).join('\n').trim(),
      weight,
      type,
      depends,
      done: box !== ' ',
      line: i + 1,
    });
  }
  if (tasks.length === 0) throw new RoadmapError('the roadmap has no tasks (no "- [ ] …" items)');
  try {
    dependencyDepths(tasks.map((t) => ({ id: t.id, needs: t.depends })));
  } catch (err) {
    if (err instanceof DependencyError) throw new RoadmapError(err.message);
    throw err;
  }
  return tasks;
}

/** The roadmap with task `id`'s box ticked (unchanged when it already is). */
export function tickTask(markdown: string, id: string): string {
  const task = parseRoadmap(markdown).find((t) => t.id === id);
  if (!task) throw new RoadmapError(`no task ${id} in the roadmap`);
  const lines = markdown.split('\n');
  lines[task.line - 1] = lines[task.line - 1].replace(/\[ \]/, '[x]');
  return lines.join('\n');
}
