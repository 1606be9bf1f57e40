import { rootCause } from '@temporalio/common';

/** The innermost message of a failure chain (activity → application failure → …): what actually went wrong. */
export function innermostMessage(err: unknown): string {
  return rootCause(err) ?? String(err);
}
