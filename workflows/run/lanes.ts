/**
 * Runs `work` on each item with at most `limit` at once, starting items in their order, and
 * resolves with the results in that order. With a limit of 1 it is a plain loop, issuing the
 * same commands in the same order as one, so runs recorded before a workflow used it replay.
 * `full(running, started)`, asked before each start, stops the lanes taking more items: the
 * ones under way finish, and the results are those of the items started, a prefix of `items`
 * (a layer hands the rest to its next run, docs/layers.md#continue-as-new).
 */
export async function inLanes<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
  full: (running: number, started: number) => boolean = () => false,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let running = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length && !full(running, next)) {
      const index = next++;
      running++;
      results[index] = await work(items[index]);
      running--;
    }
  };
  const lanes = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return results.slice(0, next);
}
