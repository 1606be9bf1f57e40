/**
 * A model call answered from a replay cassette (docs/interfaces.md#the-agent-and-the-model): the
 * next unused matching line's response, or the API error an error line records, raised as the live
 * API's would be, so Temporal's retry policy backs off and the next attempt takes the next line.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { APIError } from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import type { ApplicationFailure } from '@temporalio/common';
import { isErrorLine, matchingLineNumbers, parseCassette, type CassetteEntry, type CassetteError, type CassetteResponse } from '../../core/parsing/cassette';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { InvalidInput } from '../../core/run/invalid-input';
import type { DexStore } from '../../store/dex-store';
import { classifyModelError } from './model-errors';

/** Who a cassette line answers. */
export interface CassetteCall {
  /** Calls in one scope never take the same cassette line twice. */
  cassetteScope: string;
  /** The cassette task and phase, also sent as the `x-dex-task` and `x-dex-phase` headers. */
  task: string;
  phase: string;
  /** `<transcriptId>#<replySeq>`: claims the cassette line and is sent as `x-dex-call`. */
  callKey: string;
}

/** Parsed cassettes, re-read when a file's modification time or size changes. */
export class CassetteFiles {
  private readonly parsed = new Map<string, { mtimeMs: number; size: number; lines: CassetteEntry[] }>();

  /** The lines of cassette `file`; an unreadable or malformed file fails for good (CassetteInvalid). */
  load(file: string): CassetteEntry[] {
    try {
      const { mtimeMs, size } = statSync(file);
      const cached = this.parsed.get(file);
      if (cached && cached.mtimeMs === mtimeMs && cached.size === size) return cached.lines;
      const lines = parseCassette(readFileSync(file, 'utf8'), file);
      this.parsed.set(file, { mtimeMs, size, lines });
      return lines;
    } catch (err) {
      if (err instanceof InvalidInput) throw cassetteInvalid(err.message);
      throw cassetteInvalid(`replay cassette ${file} cannot be read: ${(err as Error).message}`);
    }
  }
}

/**
 * The response cassette `path` holds for `call`. The call's first claim is under its own key, so a
 * call retried after a crash gets the line it claimed before; an error line is raised once, by the
 * attempt that claimed it, and each later attempt claims on under the next key (`KEY+1`, `KEY+2`…).
 */
export async function cassetteReply(store: DexStore, cassettes: CassetteFiles, path: string, call: CassetteCall): Promise<CassetteResponse> {
  const file = resolve(path);
  const lines = cassettes.load(file);
  const candidates = matchingLineNumbers(lines, call.task, call.phase);
  // Without an error line to give, one claim serves; with one, a look first (no candidates: it claims
  // nothing) tells a line this attempt claims from one an earlier attempt claimed and was given.
  const errors = lines.some((l) => isErrorLine(l) && candidates.includes(l.line));
  for (let n = 0; ; n++) {
    const key = n === 0 ? call.callKey : `${call.callKey}+${n}`;
    const held = errors ? await store.claimCassetteLine(call.cassetteScope, file, key, []) : undefined;
    const lineNo = held ?? (await store.claimCassetteLine(call.cassetteScope, file, key, candidates));
    if (lineNo === undefined) {
      throw nonRetryable(FAILURE.CassetteExhausted, `replay cassette ${file} has no unused line for task "${call.task}" phase "${call.phase}"`);
    }
    const line = lines.find((l) => l.line === lineNo);
    if (!line) throw cassetteInvalid(`${file}:${lineNo}: the line claimed by ${key} is gone; the cassette changed during the run`);
    Context.current().heartbeat();
    if (!isErrorLine(line)) return line.response;
    if (held === undefined) throw apiErrorOf(line.error);
  }
}

/** The failure a live call gets for `error`: the SDK's error for that status and body, classified as any other (model-errors.ts). */
function apiErrorOf(error: CassetteError): ApplicationFailure {
  const headers = new Headers(error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) });
  const body = { type: 'error', error: { type: error.type, message: error.message } };
  return classifyModelError(APIError.generate(error.status, body, undefined, headers));
}

function cassetteInvalid(message: string): ApplicationFailure {
  return nonRetryable(FAILURE.CassetteInvalid, message);
}
