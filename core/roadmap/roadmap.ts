import { DependencyError, dependencyDepths } from './dependency-phases';
import { InvalidInput } from '../run/invalid-input';
import { WEIGHTS, type Weight } from '../task/weight';
import { isAttemptCount, MAX_ATTEMPTS } from '../task/attempts';

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
  /** `(attempts: N)`: best of N for this task over the config's `attempts:` (docs/attempts.md#roadmaps); 1 turns them off. Absent when the line says none. */
  attempts?: number;
  /** True when the box is already ticked: the task is skipped. */
  done: boolean;
  /** 1-based line of the item, for messages and for ticking its box. */
  line: number;
}

const ITEM = /^(\s*)[-*+]\s+\[([ xX])\]\s+(.*)$/;
const ID_PREFIX = /^([A-Za-z][\w.-]*):\s+/;
const ATTRIBUTE = /\s*\((weight|depends|type|attempts):\s*([^)]*)\)/g;

function parseAttributes(
  text: string,
  line: number,
  invalid: (what: string) => InvalidInput,
): { rest: string; weight?: Weight; type?: string; depends: string[]; attempts?: number } {
  let weight: Weight | undefined;
  let type: string | undefined;
  let depends: string[] = [];
  let attempts: number | undefined;
  const rest = text.replace(ATTRIBUTE, (_m, key: string, value: string) => {
    const v = value.trim();
    if (key === 'weight') {
      if (!(WEIGHTS as readonly string[]).includes(v)) {
        throw invalid(`line ${line}: unknown weight "${v}" (use ${WEIGHTS.join(', ')})`);
      }
      weight = v as Weight;
    } else if (key === 'type') {
      type = v;
    } else if (key === 'attempts') {
      attempts = /^\d+$/.test(v) ? Number(v) : NaN;
      if (!isAttemptCount(attempts)) throw invalid(`line ${line}: attempts "${v}" must be a whole number from 1 (off) to ${MAX_ATTEMPTS}`);
    } else {
      depends = v.split(',').map((d) => d.trim()).filter(Boolean);
    }
    return '';
  });
  return { rest: rest.trim(), weight, type, depends, attempts };
}

/**
 * Parses a ROADMAP.md (docs/interfaces.md#files): GitHub task-list items at any depth are tasks; the id
 * is the `ID:` prefix, else `T<n>` by order; `(weight: …)`, `(type: …)`, `(depends: …)` and
 * `(attempts: N)` are attributes. Throws InvalidInput for no tasks, a duplicate id, an unknown dependency
 * or a cycle, naming the line or the ids after `source` (the file) when given.
 */
export function parseRoadmap(markdown: string, source?: string): RoadmapTask[] {
  const invalid = (what: string) => new InvalidInput(source ? `${source}: ${what}` : what);
  const lines = markdown.split('\n');
  const tasks: RoadmapTask[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = ITEM.exec(lines[i]);
    if (!m) continue;
    const [, indent, box, text] = m;
    const prefix = ID_PREFIX.exec(text);
    const id = prefix ? prefix[1] : `T${tasks.length + 1}`;
    const { rest, weight, type, depends, attempts } = parseAttributes(prefix ? text.slice(prefix[0].length) : text, i + 1, invalid);
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
      // Only when the line asks: tasks read before attempts existed stay as they were in recorded histories.
      ...(attempts !== undefined ? { attempts } : {}),
      done: box !== ' ',
      line: i + 1,
    });
  }
  if (tasks.length === 0) throw invalid('the roadmap has no tasks (no "- [ ] …" items)');
  try {
    dependencyDepths(tasks.map((t) => ({ id: t.id, needs: t.depends })));
  } catch (err) {
    if (err instanceof DependencyError) throw invalid(err.message);
    throw err;
  }
  return tasks;
}

/** The roadmap with task `id`'s box ticked (unchanged when it already is). */
export function tickTask(markdown: string, id: string): string {
  const task = parseRoadmap(markdown).find((t) => t.id === id);
  if (!task) throw new InvalidInput(`no task ${id} in the roadmap`);
  const lines = markdown.split('\n');
  lines[task.line - 1] = lines[task.line - 1].replace(/\[ \]/, '[x]');
  return lines.join('\n');
}
