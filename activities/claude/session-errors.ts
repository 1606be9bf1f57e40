import { APIError } from '@anthropic-ai/sdk';
import type { ApplicationFailure } from '@temporalio/common';
import { classifyModelError } from '../model/model-errors';

/** How Claude Code reports a failed model call: `API Error: 529 {…}` in the error it ends with. */
const API_ERROR = /API Error: (\d{3})\b\s*(.*)/s;

/**
 * What a Claude Code session that ended in an error means for the activity
 * (docs/claude-code.md#durable-at-the-message): Claude Code's own retries are off
 * (CLAUDE_CODE_MAX_RETRIES=0), so a model call's error ends the session and is classified as dex's
 * own calls' errors are: 529, 429 and 5xx retry under Temporal's policy (the retry resumes the
 * session), a 400 or 401 fails at once. Any other end (the process died) is retried.
 */
export function classifySessionError(err: unknown): ApplicationFailure {
  const message = err instanceof Error ? err.message : String(err);
  const api = API_ERROR.exec(message);
  if (!api) return classifyModelError(new Error(`Claude Code session failed: ${message}`));
  const status = Number(api[1]);
  let body: { error?: { type?: string; message?: string } } | undefined;
  try {
    body = JSON.parse(api[2]) as typeof body;
  } catch {
    body = { error: { message: api[2].trim() } };
  }
  return classifyModelError(APIError.generate(status, body, body?.error?.message ?? api[2], new Headers()));
}
