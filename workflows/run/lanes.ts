/**
 * Runs `work` on each item with at most `limit` at once, starting items in their order, and
 * resolves with the results in that order. With a limit of 1 it is a plain loop, issuing the
 * same commands in the same order as one, so runs recorded before a workflow used it replay.
 */
export async function inLanes<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  const lanes = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return results;
}
