/** `promise`, or a rejection once `ms` have passed: the test server leaves some queries unanswered (a run that continued as new, one whose first workflow task is not done). */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** How long the replay driver waits for a run's status before it asks again on its next turn. */
export const QUERY_MS = 5_000;
