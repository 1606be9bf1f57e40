import type { RunEnd } from '../run/follow-run';
import { planKindOf } from '../plan-kinds';

/** A finished run as text: its state and error, then what its plan kind reports of its result. */
export function renderRunEnd(workflowType: string, id: string, end: RunEnd<unknown>): string {
  const head = `${id}: ${end.state}${end.error ? ` — ${end.error}` : ''}`;
  const kind = planKindOf(workflowType);
  // The workflow type names the kind, so the result is that kind's.
  const body = kind && end.result ? kind.render(end.result as never) : [];
  return [head, ...body].join('\n');
}
