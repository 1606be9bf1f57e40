/**
 * Turns Anthropic SDK errors into Temporal failures: what retrying cannot fix is
 * non-retryable, the rest retries, after the server's `retry-after` when it gives one.
 */
import { AnthropicError, APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import type { CassetteError } from '../../core/parsing/cassette';
import { FAILURE, type FailureType } from '../../core/run/failure-types';

interface ErrorKind {
  type: FailureType;
  retryable: boolean;
}

const BAD_REQUEST: ErrorKind = { type: FAILURE.ModelBadRequest, retryable: false };
const AUTH: ErrorKind = { type: FAILURE.ModelAuth, retryable: false };
const PERMISSION: ErrorKind = { type: FAILURE.ModelPermission, retryable: false };
const NOT_FOUND: ErrorKind = { type: FAILURE.ModelNotFound, retryable: false };
const TOO_LARGE: ErrorKind = { type: FAILURE.ModelRequestTooLarge, retryable: false };
const CONTEXT_LENGTH: ErrorKind = { type: FAILURE.ModelContextLength, retryable: false };
const SPEND_LIMIT: ErrorKind = { type: FAILURE.ModelSpendLimit, retryable: false };
const TIMEOUT: ErrorKind = { type: FAILURE.ModelTimeout, retryable: true };
const CONFLICT: ErrorKind = { type: FAILURE.ModelConflict, retryable: true };
const RATE_LIMITED: ErrorKind = { type: FAILURE.ModelRateLimited, retryable: true };
const OVERLOADED: ErrorKind = { type: FAILURE.ModelOverloaded, retryable: true };
const SERVER_ERROR: ErrorKind = { type: FAILURE.ModelServerError, retryable: true };
const CONNECTION: ErrorKind = { type: FAILURE.ModelConnection, retryable: true };
const BAD_RESPONSE: ErrorKind = { type: FAILURE.ModelBadResponse, retryable: true };
const ABORTED: ErrorKind = { type: FAILURE.ModelAborted, retryable: true };
const FAILED: ErrorKind = { type: FAILURE.ModelCallFailed, retryable: true };

const BY_STATUS: Record<number, ErrorKind> = {
  400: BAD_REQUEST,
  401: AUTH,
  402: SPEND_LIMIT,
  403: PERMISSION,
  404: NOT_FOUND,
  408: TIMEOUT,
  409: CONFLICT,
  413: TOO_LARGE,
  422: BAD_REQUEST,
  429: RATE_LIMITED,
  529: OVERLOADED,
};

/** Error types of the API's error bodies, for errors that arrive inside a stream (no status). */
const BY_API_TYPE: Record<string, ErrorKind> = {
  invalid_request_error: BAD_REQUEST,
  authentication_error: AUTH,
  billing_error: SPEND_LIMIT,
  permission_error: PERMISSION,
  not_found_error: NOT_FOUND,
  request_too_large: TOO_LARGE,
  rate_limit_error: RATE_LIMITED,
  timeout_error: TIMEOUT,
  api_error: SERVER_ERROR,
  overloaded_error: OVERLOADED,
};

const CONTEXT_LENGTH_TEXT = /context (length|window|limit)|prompt is too long|too many (input )?tokens/i;
const SPEND_LIMIT_TEXT = /credit balance|spend(ing)? limit|billing|usage limits?/i;
const MISSING_CREDENTIALS_TEXT = /could not resolve authentication method/i;
const MAX_DETAIL_CHARS = 500;

/** The Temporal failure for an error thrown by an Anthropic SDK call. */
export function classifyModelError(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof APIError) return fromApiError(err);
  const message = err instanceof Error ? err.message : String(err);
  if (!(err instanceof SyntaxError) && MISSING_CREDENTIALS_TEXT.test(message)) {
    return failure(AUTH, `Anthropic client is not configured: ${message}`);
  }
  if (err instanceof SyntaxError || err instanceof AnthropicError) {
    // The SDK raises these for a body it cannot read: broken JSON, or a stream that ends early.
    return failure(BAD_RESPONSE, `Anthropic API response could not be read: ${err.message}`);
  }
  return failure(FAILED, `Anthropic API call failed: ${message}`);
}

/**
 * What a cassette's error line says of `err`, an API error that `failure` (its classification)
 * retries: status, body and `retry-after`, as a replay raises it again. Undefined for an error that
 * is not retried (the call fails, and so does a replay's, which finds no line for it) and for one
 * with no HTTP status (a dropped connection, a stalled stream), which an error line cannot hold.
 */
export function retriedErrorLine(err: unknown, failure: ApplicationFailure): CassetteError | undefined {
  if (failure.nonRetryable || !(err instanceof APIError) || err instanceof APIConnectionError) return undefined;
  const { status } = err;
  if (typeof status !== 'number' || status < 400 || status > 599) return undefined;
  const after = retryAfterMs(err.headers);
  const message = redactKeys((err.apiMessage ?? err.message).slice(0, MAX_DETAIL_CHARS));
  return { status, type: err.type ?? 'api_error', message, ...(after === undefined ? {} : { retryAfterSeconds: after / 1000 }) };
}

function fromApiError(err: APIError): ApplicationFailure {
  if (err instanceof APIUserAbortError) return failure(ABORTED, `Anthropic API request was aborted: ${err.message}`);
  if (err instanceof APIConnectionTimeoutError) {
    return failure(TIMEOUT, `Anthropic API request timed out: ${err.message}`);
  }
  if (err instanceof APIConnectionError) {
    return failure(CONNECTION, `Anthropic API connection failed: ${describeCause(err)}`);
  }
  const apiType = err.type ?? undefined;
  // Without an API message (a proxy's HTML page, say) the SDK's message holds the raw body.
  const detail = (err.apiMessage ?? err.message).slice(0, MAX_DETAIL_CHARS);
  const label = [err.status, apiType].filter((part) => part !== undefined && part !== null).join(' ');
  const message = `Anthropic API ${label || 'error'}: ${detail}`;
  const kind = CONTEXT_LENGTH_TEXT.test(detail)
    ? CONTEXT_LENGTH
    : SPEND_LIMIT_TEXT.test(detail)
      ? SPEND_LIMIT
      : kindOf(err.status, apiType);
  const delay = kind.retryable ? retryAfterMs(err.headers) : undefined;
  const details = { status: err.status ?? null, apiType: apiType ?? null, requestId: err.requestID ?? null };
  return failure(kind, message, delay, details);
}

function kindOf(status: number | undefined, apiType: string | undefined): ErrorKind {
  if (status !== undefined) {
    if (BY_STATUS[status]) return BY_STATUS[status];
    if (status >= 500) return SERVER_ERROR;
    return BAD_REQUEST;
  }
  return (apiType && BY_API_TYPE[apiType]) || SERVER_ERROR;
}

/** The delay the server asks for in `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const after = headers.get('retry-after')?.trim();
  if (!after) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Math.round(Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function describeCause(err: Error): string {
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error && cause.message !== err.message ? `${err.message} (${cause.message})` : err.message;
}

// The SDK error is not attached as `cause`: its message embeds the raw response body, and the
// message built here already says what happened.
function failure(kind: ErrorKind, message: string, nextRetryDelay?: number, details?: object): ApplicationFailure {
  return ApplicationFailure.create({
    message: redactKeys(message),
    type: kind.type,
    nonRetryable: !kind.retryable,
    nextRetryDelay,
    details: details ? [details] : undefined,
  });
}

/** API messages sometimes quote the key they refused; it must not reach workflow history. */
function redactKeys(text: string): string {
  return text.replace(/sk-ant-[A-Za-z0-9_-]+/g, 'sk-ant-[redacted]');
}
