/** The innermost message of a failure chain (activity → application failure → …): what actually went wrong. */
export function innermostMessage(err: unknown): string {
  let cur: unknown = err;
  while (cur instanceof Error && (cur as { cause?: unknown }).cause instanceof Error) cur = (cur as { cause?: unknown }).cause;
  return cur instanceof Error ? cur.message : String(err);
}
