import { patched } from '@temporalio/workflow';
import { compareTaskIds } from '../../core/roadmap/task-order';

/** The order releases before natural ids compared task ids in: by character code (`T10` before `T2`). */
const byCharacters = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * `items` sorted by task id in natural order (`T2` before `T10`; core/roadmap/task-order.ts), for
 * what a roadmap does to several tasks at once: landing them, granting them budget. A run
 * recorded when ids compared by character replays in that order: the patch is asked only when
 * the two orders differ, so runs they agree on carry no marker.
 */
export function inIdOrder<T>(items: readonly T[], idOf: (item: T) => string): T[] {
  const natural = [...items].sort((a, b) => compareTaskIds(idOf(a), idOf(b)));
  const old = [...items].sort((a, b) => byCharacters(idOf(a), idOf(b)));
  if (natural.every((item, i) => item === old[i])) return natural;
  return patched('natural-id-order') ? natural : old;
}
