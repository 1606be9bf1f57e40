/**
 * The recorder of `--llm record:FILE` (docs/interfaces.md#recording-a-run): each live reply is
 * appended to FILE as a cassette line that carries its model-call key (`call`). The cassette is
 * the record's source of truth: a call whose key is already in FILE gets that line's response
 * and calls nothing, so an activity retried after a crash (between appending and storing the
 * reply) neither pays twice nor records twice, and stores what the recording says it saw. An
 * attempt the API answered with an error that is retried leaves an error line before the answer
 * that finally came, so a replay retries as the recording did.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordedErrorLineText, recordedLineText, type CassetteError, type CassetteResponse } from '../../core/parsing/cassette';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';

/** Who a recorded reply answers: the model-call key and the cassette task and phase. */
interface RecordedCall {
  call: string;
  task: string;
  phase: string;
}

/** A lock older than this was left by a process that died holding it: the critical section takes milliseconds. */
const STALE_LOCK_MS = 30_000;
/** How long to wait for the lock before the attempt fails (retryably). */
const LOCK_WAIT_MS = 60_000;

/**
 * The reply to `who`: the one FILE already holds for its call key, else `live()`'s, appended to
 * FILE. The check and the append happen under FILE's lock, so two attempts of one call (one
 * Temporal gave up on, still running) record one line and both return it.
 */
export async function recordedReply(file: string, who: RecordedCall, live: () => Promise<CassetteResponse>): Promise<CassetteResponse> {
  const earlier = findRecorded(file, who.call);
  if (earlier) return earlier;
  // A round trip through JSON drops the SDK's helper fields: what is returned is what the line holds.
  const response = JSON.parse(JSON.stringify(await live())) as CassetteResponse;
  return withFileLock(file, () => {
    const raced = findRecorded(file, who.call);
    if (raced) return raced;
    appendLine(file, recordedLineText(who.call, who.task, who.phase, response));
    return response;
  });
}

/**
 * Appends the error line of an attempt of `who` that is retried (docs/testing-your-flows.md#model-errors-and-retries):
 * a replay raises it at the same attempt. None once FILE holds the call's answer: an attempt
 * Temporal gave up on that fails after another one got the answer changes nothing.
 */
export async function recordedError(file: string, who: RecordedCall, error: CassetteError): Promise<void> {
  await withFileLock(file, () => {
    if (!findRecorded(file, who.call)) appendLine(file, recordedErrorLineText(who.call, who.task, who.phase, error));
  });
}

/** The response FILE holds for call key `call`, if any; a missing file holds none. */
export function findRecorded(file: string, call: string): CassetteResponse | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unwritable(file, err);
  }
  const needle = JSON.stringify(call);
  for (const raw of text.split('\n')) {
    if (!raw.includes(needle)) continue;
    try {
      const value = JSON.parse(raw) as { call?: unknown; response?: CassetteResponse };
      if (value.call === call && value.response) return value.response;
    } catch {
      // a line torn by a crash mid-write: not a recording of this call
    }
  }
  return undefined;
}

/** Appends `line` in one write with O_APPEND; a torn last line (a crash mid-write) is ended first. */
function appendLine(file: string, line: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'a');
    const size = statSync(file).size;
    const torn = size > 0 && !readFileSync(file, 'utf8').endsWith('\n');
    writeSync(fd, `${torn ? '\n' : ''}${line}\n`);
  } catch (err) {
    throw unwritable(file, err);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Runs `section` holding `FILE.lock`, made with O_EXCL so one process of any on this host holds
 * it; a lock left by a dead process is taken over once stale.
 */
export async function withFileLock<T>(file: string, section: () => T): Promise<T> {
  const lock = `${file}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    let fd: number;
    try {
      fd = openSync(lock, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw unwritable(file, err);
      if (Date.now() > deadline) throw new Error(`the record cassette's lock ${lock} was held for ${LOCK_WAIT_MS / 1000}s`);
      removeIfStale(lock);
      await sleep(5 + Math.random() * 20);
      continue;
    }
    try {
      writeSync(fd, `${process.pid}\n`);
      return section();
    } finally {
      closeSync(fd);
      unlinkSync(lock);
    }
  }
}

function removeIfStale(lock: string): void {
  try {
    if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
  } catch {
    // gone already: the next try takes it
  }
}

/** A record cassette that cannot be read or written fails the call for good: a retry would not fix it. */
function unwritable(file: string, err: unknown) {
  return nonRetryable(FAILURE.CassetteInvalid, `record cassette ${file} cannot be written: ${(err as Error).message}`);
}
