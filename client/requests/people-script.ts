/**
 * A people script (docs/testing-your-flows.md#scripted-people): who answers which gate of a run
 * replayed on the time-skipping server, and what the run must come to. Every problem is one line,
 * `FILE:LINE:COLUMN: problem`, an InvalidInput (exit 2) before anything starts.
 */
import { readFileSync } from 'node:fs';
import { parseYamlInput } from '../../core/parsing/yaml-input';
import { InvalidInput } from '../../core/run/invalid-input';

/** One person's answer: at the first wait at `gate` (of `task`, when given) not answered yet. */
export interface ScriptedAnswer {
  /** `approve`, `reject`, or `wait`: leave the gate alone, so its deadline's default acts. */
  action: 'approve' | 'reject' | 'wait';
  /** The gate as `dex status` names it: `after-verify:implement`, `before:test`, `blocked`, `budget`… */
  gate: string;
  /** Whose gate this is: a roadmap's task, or a sheet's task statement (its id; `<id>-undo` for its undo's task). @default any */
  task?: string;
  note?: string;
  reason?: string;
  retry?: boolean;
  by?: string;
  /** At the `budget` gate (`raiseBudgetUsd: N`): the new budget in USD, as `dex approve --budget-usd N` sends it. */
  budgetUsd?: number;
  /** `after: 1d`: the person answers once the gate has waited this long (on the server's clock, which skips). */
  afterMs?: number;
}

/** What the run must come to; every field is optional. */
export interface Expectations {
  /** The run's end state (`completed`, `rejected`, …). */
  state?: string;
  /** Each named task's end state. */
  tasks?: Record<string, string>;
  /** The run's cost at most this, in USD. */
  maxCostUsd?: number;
  /** Each text appears in at least one prompt sent to the model. */
  promptsContain?: string[];
  /** Ends as the recording did: state, each task's state and tree, the landed branch's tree. */
  sameAsRecorded?: boolean;
}

/** A checked people script. */
export interface PeopleScript {
  answers: ScriptedAnswer[];
  expect: Expectations;
}

const TOP = ['people', 'expect'];
const ANSWER = ['approve', 'reject', 'wait', 'raiseBudgetUsd', 'task', 'note', 'reason', 'retry', 'by', 'after'];
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const EXPECT = ['state', 'tasks', 'maxCostUsd', 'promptsContain', 'sameAsRecorded'];
const ACTIONS = ['approve', 'reject', 'wait', 'raiseBudgetUsd'] as const;

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads and checks the people script at `file`. */
export function readPeopleScript(file: string): PeopleScript {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InvalidInput(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return parsePeopleScript(text, file);
}

/** Parses a people script's text; `source` names it in errors. */
export function parsePeopleScript(text: string, source: string): PeopleScript {
  const yaml = parseYamlInput(text, source);
  const fail = (path: (string | number)[], problem: string, key?: string): never => {
    throw new InvalidInput(`${yaml.placeOf(path, key)}: ${problem}`);
  };
  const doc = yaml.value ?? {};
  if (!isMap(doc)) fail([], 'a people script is a map with `people` and `expect`');
  const top = doc as Record<string, unknown>;
  for (const key of Object.keys(top)) if (!TOP.includes(key)) fail([], `unknown key "${key}" (allowed: ${TOP.join(', ')})`, key);
  const people = top.people ?? [];
  if (!Array.isArray(people)) fail(['people'], '`people` must be a list of answers such as `- approve: after-verify:implement`');
  const answers = (people as unknown[]).map((entry, i) => answerAt(entry, ['people', i], fail));
  const expect = top.expect ?? {};
  if (!isMap(expect)) fail(['expect'], '`expect` must be a map');
  return { answers, expect: expectationsAt(expect as Record<string, unknown>, fail) };
}

type Fail = (path: (string | number)[], problem: string, key?: string) => never;

function answerAt(entry: unknown, path: (string | number)[], fail: Fail): ScriptedAnswer {
  if (!isMap(entry)) return fail(path, 'an answer is a map such as `approve: after-verify:implement`');
  for (const key of Object.keys(entry)) if (!ANSWER.includes(key)) fail(path, `unknown key "${key}" (allowed: ${ANSWER.join(', ')})`, key);
  const actions = ACTIONS.filter((a) => entry[a] !== undefined);
  if (actions.length !== 1) fail(path, 'an answer names one of approve, reject or wait, with the gate (`reject: after-verify:test`), or raiseBudgetUsd with the new budget');
  const action = actions[0];
  const text = (key: string) => {
    if (entry[key] !== undefined && typeof entry[key] !== 'string') fail([...path, key], `"${key}" must be text`);
    return entry[key] as string | undefined;
  };
  if (entry.retry !== undefined && typeof entry.retry !== 'boolean') fail([...path, 'retry'], '"retry" must be true or false');
  if (action === 'reject' && !text('reason')) fail(path, 'a reject needs a `reason` (it goes into the next prompt)');
  if (action !== 'reject' && (entry.reason !== undefined || entry.retry !== undefined)) fail(path, '`reason` and `retry` go with reject');
  const answer = action === 'raiseBudgetUsd' ? budgetAnswer(entry.raiseBudgetUsd, [...path, action], fail) : { action, gate: gateAt(entry[action], [...path, action], fail) };
  for (const key of ['task', 'note', 'reason', 'by'] as const) if (text(key) !== undefined) answer[key] = text(key);
  if (entry.retry !== undefined) answer.retry = entry.retry as boolean;
  if (entry.after !== undefined) {
    const m = /^(\d+(?:\.\d+)?)\s*([smhd])$/.exec(String(entry.after).trim());
    if (!m || action === 'wait') fail([...path, 'after'], action === 'wait' ? '`after` goes with an answer, not with wait' : '"after" must be a time such as 30m, 3h or 1d');
    answer.afterMs = Number(m![1]) * UNIT_MS[m![2]];
  }
  return answer;
}

function gateAt(gate: unknown, path: (string | number)[], fail: Fail): string {
  if (typeof gate !== 'string' || !gate) fail(path, `"${path[path.length - 1]}" must name a gate, such as after-verify:implement`);
  return gate as string;
}

/** `raiseBudgetUsd: 2.00`: at the `budget` gate (state `budget_exceeded`), approve with the budget raised to that many USD. */
function budgetAnswer(usd: unknown, path: (string | number)[], fail: Fail): ScriptedAnswer {
  if (typeof usd !== 'number' || !Number.isFinite(usd) || !(usd > 0)) fail(path, '"raiseBudgetUsd" must be the new budget, a number of USD above 0');
  return { action: 'approve', gate: 'budget', budgetUsd: usd as number };
}

function expectationsAt(expect: Record<string, unknown>, fail: Fail): Expectations {
  for (const key of Object.keys(expect)) if (!EXPECT.includes(key)) fail(['expect'], `unknown key "${key}" (allowed: ${EXPECT.join(', ')})`, key);
  const out: Expectations = {};
  if (expect.state !== undefined) {
    if (typeof expect.state !== 'string') fail(['expect', 'state'], '"state" must be a run state such as completed');
    out.state = expect.state as string;
  }
  if (expect.tasks !== undefined) {
    const tasks = expect.tasks;
    if (!isMap(tasks) || Object.values(tasks).some((s) => typeof s !== 'string')) fail(['expect', 'tasks'], '"tasks" maps task ids to states: `{ T1: completed }`');
    out.tasks = tasks as Record<string, string>;
  }
  if (expect.maxCostUsd !== undefined) {
    if (typeof expect.maxCostUsd !== 'number' || expect.maxCostUsd < 0) fail(['expect', 'maxCostUsd'], '"maxCostUsd" must be a number of USD');
    out.maxCostUsd = expect.maxCostUsd as number;
  }
  if (expect.promptsContain !== undefined) {
    const texts = typeof expect.promptsContain === 'string' ? [expect.promptsContain] : expect.promptsContain;
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) fail(['expect', 'promptsContain'], '"promptsContain" is a text or a list of texts');
    out.promptsContain = texts as string[];
  }
  if (expect.sameAsRecorded !== undefined) {
    if (typeof expect.sameAsRecorded !== 'boolean') fail(['expect', 'sameAsRecorded'], '"sameAsRecorded" must be true or false');
    out.sameAsRecorded = expect.sameAsRecorded as boolean;
  }
  return out;
}
