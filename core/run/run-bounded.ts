/**
 * Runs `work` over `items` with at most `limit` at a time, starting them in order. Pure and
 * deterministic (no timers): safe in workflow code, where it bounds concurrent activities.
 */
export async function runBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}
