import { AnthropicError, APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { classifyModelError, retryAfterMs } from '../../../activities/model/model-errors';

const apiError = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
  APIError.generate(status, { type: 'error', error: { type, message } }, undefined, new Headers({ 'request-id': 'req_1', ...headers }));

describe('classifyModelError', () => {
  it.each([
    [400, 'invalid_request_error', 'messages: at least one message is required', 'ModelBadRequest'],
    [401, 'authentication_error', 'invalid x-api-key', 'ModelAuth'],
    [403, 'permission_error', 'not allowed', 'ModelPermission'],
    [404, 'not_found_error', 'model: claude-nope', 'ModelNotFound'],
    [413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes', 'ModelRequestTooLarge'],
    [422, 'invalid_request_error', 'unprocessable', 'ModelBadRequest'],
    [400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum', 'ModelContextLength'],
    [400, 'invalid_request_error', 'input length and `max_tokens` exceed context limit; context length is 200000', 'ModelContextLength'],
    [400, 'invalid_request_error', 'Your credit balance is too low to access the Anthropic API.', 'ModelSpendLimit'],
    [429, 'rate_limit_error', 'You have reached your specified workspace spend limit', 'ModelSpendLimit'],
  ])('%i %s (%s) is non-retryable %s', (status, type, message, failureType) => {
    const failure = classifyModelError(apiError(status, type, message));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe(failureType);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it.each([
    [408, 'timeout_error', 'ModelTimeout'],
    [409, 'api_error', 'ModelConflict'],
    [429, 'rate_limit_error', 'ModelRateLimited'],
    [500, 'api_error', 'ModelServerError'],
    [503, 'api_error', 'ModelServerError'],
    [529, 'overloaded_error', 'ModelOverloaded'],
  ])('%i %s is retryable %s', (status, type, failureType) => {
    const failure = classifyModelError(apiError(status, type, 'try later'));
    expect(failure.type).toBe(failureType);
    expect(failure.nonRetryable).toBe(false);
  });

  it('writes a clear message with status, type and the API message', () => {
    const failure = classifyModelError(apiError(401, 'authentication_error', 'invalid x-api-key'));
    expect(failure.message).toBe('Anthropic API 401 authentication_error: invalid x-api-key');
    expect(failure.details).toEqual([{ status: 401, apiType: 'authentication_error', requestId: 'req_1' }]);
  });

  it('never repeats an API key that an error message quotes', () => {
    const failure = classifyModelError(apiError(401, 'authentication_error', 'invalid key sk-ant-api03-SECRETsecret_123'));
    expect(failure.message).not.toContain('SECRET');
    expect(failure.message).toContain('sk-ant-[redacted]');
  });

  it('classifies an error event inside a stream by its error type', () => {
    const streamed = new APIError(undefined, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, undefined, new Headers(), 'overloaded_error');
    const failure = classifyModelError(streamed);
    expect(failure.type).toBe('ModelOverloaded');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe('Anthropic API overloaded_error: Overloaded');
  });

  it('honours retry-after in seconds, retry-after-ms, and an HTTP date', () => {
    expect(classifyModelError(apiError(429, 'rate_limit_error', 'slow down', { 'retry-after': '2' })).nextRetryDelay).toBe(2000);
    expect(classifyModelError(apiError(529, 'overloaded_error', 'busy', { 'retry-after-ms': '1500', 'retry-after': '9' })).nextRetryDelay).toBe(1500);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }), now)).toBe(30_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Tue, 31 Dec 2024 23:00:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  it('ignores retry-after on a non-retryable error', () => {
    expect(classifyModelError(apiError(400, 'invalid_request_error', 'bad', { 'retry-after': '5' })).nextRetryDelay).toBeUndefined();
  });

  it('retries connection errors and timeouts', () => {
    const connection = classifyModelError(new APIConnectionError({ message: 'Connection error.', cause: new Error('ECONNREFUSED') }));
    expect(connection.type).toBe('ModelConnection');
    expect(connection.nonRetryable).toBe(false);
    expect(connection.message).toContain('ECONNREFUSED');
    const timeout = classifyModelError(new APIConnectionTimeoutError());
    expect(timeout.type).toBe('ModelTimeout');
    expect(timeout.nonRetryable).toBe(false);
  });

  it('retries an unreadable response', () => {
    let syntax: unknown;
    try {
      JSON.parse('{"broken');
    } catch (err) {
      syntax = err;
    }
    for (const err of [syntax, new AnthropicError('stream ended without producing a Message with role=assistant')]) {
      const failure = classifyModelError(err);
      expect(failure.type).toBe('ModelBadResponse');
      expect(failure.nonRetryable).toBe(false);
    }
  });

  it('does not retry a client without credentials', () => {
    const missing = new AnthropicError('Could not resolve authentication method. Expected one of apiKey, authToken, credentials, config, or profile to be set.');
    const failure = classifyModelError(missing);
    expect(failure.type).toBe('ModelAuth');
    expect(failure.nonRetryable).toBe(true);
  });

  it('retries other failures, naming what went wrong', () => {
    const failure = classifyModelError(new TypeError('fetch failed'));
    expect(failure.type).toBe('ModelCallFailed');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe('Anthropic API call failed: fetch failed');
  });

  it('passes an ApplicationFailure through unchanged', () => {
    const original = ApplicationFailure.create({ type: 'CassetteExhausted', nonRetryable: true, message: 'x' });
    expect(classifyModelError(original)).toBe(original);
  });
});
