/**
 * How a replayed layer or sheet differs from its recording (docs/testing-your-flows.md#layers-and-sheets),
 * one line per difference; none: they ended the same.
 */
import { dirname, relative } from 'node:path';
import type { LayerInput } from '../../core/layer/layer-types';
import { plural } from '../../core/text/plural';
import type { LayerOutcome, RecordedLayer, RecordedSheet, SheetOutcome } from '../requests/recorded-plans';

/** Text cut to `n` characters for a line. */
const clip = (text: string, n = 60) => JSON.stringify(text.length > n ? `${text.slice(0, n)}…` : text);

/** Where two prompts first differ, as `line N: "now", recorded "was"`. */
function firstDifference(was: string, now: string): string {
  const a = was.split('\n');
  const b = now.split('\n');
  let i = 0;
  while (i < Math.max(a.length, b.length) && a[i] === b[i]) i++;
  return `line ${i + 1}: ${clip(b[i] ?? '')}, recorded ${clip(a[i] ?? '')}`;
}

/** Statuses by id: each `what ID: now, recorded was`, and what only one side has. */
function byId(what: string, recorded: { id: string; status: string }[], replayed: { id: string; status: string }[]): string[] {
  const out: string[] = [];
  const now = new Map(replayed.map((t) => [t.id, t.status]));
  for (const t of recorded) {
    if (!now.has(t.id)) out.push(`${what} ${t.id}: not in the replay`);
    else if (now.get(t.id) !== t.status) out.push(`${what} ${t.id}: ${now.get(t.id)}, recorded ${t.status}`);
  }
  for (const t of replayed) if (!recorded.some((r) => r.id === t.id)) out.push(`${what} ${t.id}: not in the recording`);
  return out;
}

/**
 * A layer replay's differences: state and status, each target's status, each stored insight,
 * and the prompts. A changed template is one line naming it and the prompts it changed, since
 * the cassette's answers were given to the prompts recorded, not to the ones it renders now.
 */
export function layerDifferences(recorded: RecordedLayer, replayed: LayerOutcome, layer: LayerInput | undefined): string[] {
  const was = recorded.end;
  const out: string[] = [];
  if (was.state !== replayed.state) out.push(`state: ${replayed.state}, recorded ${was.state}`);
  if (was.status !== replayed.status) out.push(`status: ${replayed.status ?? 'none'}, recorded ${was.status ?? 'none'}`);
  out.push(...byId('target', was.targets, replayed.targets));

  const templateOf = new Map<string, string>();
  for (const node of layer?.layer.nodes ?? []) if ('promptTemplate' in node.params) templateOf.set(node.name, node.params.promptTemplate);
  const promptLines = new Map<string, string>();
  for (const key of new Set([...Object.keys(was.prompts), ...Object.keys(replayed.prompts)])) {
    const [before, now] = [was.prompts[key], replayed.prompts[key]];
    if (before === now) continue;
    if (before === undefined || now === undefined) promptLines.set(key, `prompt of ${key}: ${now === undefined ? 'not sent in the replay' : 'not sent when recorded'}`);
    else promptLines.set(key, `prompt of ${key} differs from the recorded one at ${firstDifference(before, now)}`);
  }
  const nowSha = layer?.templates ?? {};
  for (const [path, sha] of Object.entries(recorded.templates)) {
    if (nowSha[path] === sha) continue;
    const name = relative(dirname(recorded.file), path);
    const changed = [...promptLines.keys()].filter((key) => templateOf.get(key.slice(key.lastIndexOf('/') + 1)) === path);
    const first = changed[0] && promptLines.get(changed[0])!.replace(/^prompt of \S+ differs from the recorded one at /, '');
    for (const key of changed) promptLines.delete(key);
    const which = changed.length ? `: ${plural(changed.length, 'prompt')} ${changed.length === 1 ? 'differs' : 'differ'} (${changed.join(', ')}; first at ${first})` : '';
    out.push(`prompt template ${name} changed since the recording${which}; the cassette's answers were given to the recorded prompts`);
  }
  out.push(...promptLines.values());

  const now = new Map(replayed.insights.map((i) => [i.key, i]));
  for (const i of was.insights) {
    const r = now.get(i.key);
    if (!r) out.push(`insight ${i.key}: not stored in the replay`);
    else if (r.content !== i.content || r.category !== i.category || r.topic !== i.topic || r.unparsed !== i.unparsed) {
      out.push(`insight ${i.key}: ${r.topic} ${r.category}${r.unparsed ? ' (unparsed)' : ''} ${clip(r.content)}, recorded ${i.topic} ${i.category}${i.unparsed ? ' (unparsed)' : ''} ${clip(i.content)}`);
    }
  }
  for (const i of replayed.insights) if (!was.insights.some((w) => w.key === i.key)) out.push(`insight ${i.key}: not stored when recorded`);
  return out;
}

/**
 * A sheet replay's differences: state, and each statement's status, value and error; a task
 * statement's tree instead of its value (a commit made again is another commit), with the files
 * that differ when `files` finds both trees.
 */
export function sheetDifferences(recorded: RecordedSheet, replayed: SheetOutcome, files: (a: string, b: string) => string[] = () => []): string[] {
  const was = recorded.end;
  const out: string[] = [];
  if (was.state !== replayed.state) out.push(`state: ${replayed.state}, recorded ${was.state}`);
  out.push(...byId('statement', was.statements, replayed.statements));
  const now = new Map(replayed.statements.map((s) => [s.id, s]));
  for (const s of was.statements) {
    const r = now.get(s.id);
    if (!r) continue;
    if (s.tree !== undefined || r.tree !== undefined) {
      const changed = s.tree && r.tree && r.tree !== s.tree ? files(s.tree, r.tree) : [];
      if (r.tree !== s.tree) out.push(`statement ${s.id}: tree ${r.tree ?? 'none'}, recorded ${s.tree ?? 'none'}${changed.length ? ` (files differ: ${changed.join(', ')})` : ''}`);
    } else if (r.value !== s.value) out.push(`statement ${s.id}: value ${r.value === undefined ? 'none' : clip(r.value)}, recorded ${s.value === undefined ? 'none' : clip(s.value)}`);
    if (r.error !== s.error) out.push(`statement ${s.id}: error ${r.error ?? 'none'}, recorded ${s.error ?? 'none'}`);
  }
  return out;
}

/** The head of a replay that ended as recorded: `completed (success), 2 targets and 2 insights the same`. */
export function planSameLine(outcome: LayerOutcome | SheetOutcome): string {
  if ('statements' in outcome) return `${outcome.state}, ${plural(outcome.statements.length, 'statement')} the same`;
  return `${outcome.state} (${outcome.status ?? 'no record'}), ${plural(outcome.targets.length, 'target')} and ${plural(outcome.insights.length, 'insight')} the same`;
}
