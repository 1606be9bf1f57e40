/**
 * Payload encryption end to end (docs/production.md#payload-encryption): a task run on a worker
 * and client that seal payloads leaves no prompt or file content in plain text on the server,
 * as the stock Temporal CLI shows it; `dex codec-server` lets that CLI show them again, after a
 * new key was put in front of the one that sealed them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AesGcmCodec, parseCodecKeys } from '../../../client/server/payload-codec';
import { RunHistory } from '../../../client/run-history';
import type { TaskInput, TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';

const K1 = randomBytes(32).toString('base64');
const K2 = randomBytes(32).toString('base64');
/** In the task's description, so in the workflow input and the first prompt. */
const PROMPT_MARK = 'ZEBRA-QUOKKA-7731';
/** In src/math.js of the sample repository, so in the preview of read_file's result (a turn that also edits: runTurnTools). */
const FILE_MARK = 'Adds two numbers.';

const dex = useDexEnvironment({
  server: 'dev',
  cassette: [
    toolTurn('T-sealed', ['read_file', { path: 'src/math.js' }], ['edit_file', { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' }]),
    completionTurn('T-sealed', { status: 'complete', summary: 'sum adds now' }),
  ],
  queue: 'dex-it-codec',
  codec: new AesGcmCodec(parseCodecKeys(`k1:${K1}`)),
});

/**
 * Whether `secret` shows anywhere in the CLI's output: as text, or inside any base64 string in
 * it (the CLI prints payloads it cannot read as base64), so the search cannot miss it either way.
 */
function shows(output: string, secret: string): boolean {
  if (output.includes(secret)) return true;
  return (output.match(/[A-Za-z0-9+/]{16,}={0,2}/g) ?? []).some((b64) => Buffer.from(b64, 'base64').toString('latin1').includes(secret));
}

let codecServer: ChildProcess | undefined;
afterEach(() => {
  codecServer?.kill('SIGTERM');
  codecServer = undefined;
});

/** Starts the real `dex codec-server` on a free port; resolves with its URL. */
function startDexCodecServer(keys: string): Promise<string> {
  const child = spawn(process.execPath, [join(__dirname, '..', '..', '..', 'bin', 'dex.js'), 'codec-server', '--port', '0'], {
    env: { ...process.env, DEX_CODEC_KEYS: keys },
  });
  codecServer = child;
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (url) resolve(url[0]);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('exit', (code) => reject(new Error(`dex codec-server exited ${code}: ${err}`)));
  });
}

describe('payload encryption', () => {
  it('keeps prompts and file contents off the server in plain text; dex codec-server decodes them, also after a rotation', async () => {
    const { handle } = await dex.startTask('T-sealed', { description: `test/math.test.js fails (${PROMPT_MARK}): sum(2, 3) should be 5.` });
    const result = (await handle.result()) as TaskResult;
    expect(result.state).toBe('completed');

    const show = ['workflow', 'show', '--workflow-id', handle.workflowId, '-o', 'json'];
    const sealed = await dex.temporal(...show);
    // The payloads are there, sealed under k1 ("azE=" is k1 in base64).
    expect(sealed).toContain('"encryption-key-id": "azE="');
    expect(shows(sealed, PROMPT_MARK)).toBe(false);
    expect(shows(sealed, FILE_MARK)).toBe(false);
    expect(shows(sealed, 'json/plain')).toBe(false);

    // k2 now seals new payloads; k1 stays to read what it sealed.
    const url = await startDexCodecServer(`k2:${K2},k1:${K1}`);
    const opened = await dex.temporal(...show, '--codec-endpoint', url);
    expect(shows(opened, PROMPT_MARK)).toBe(true);
    expect(shows(opened, FILE_MARK)).toBe(true);

    // dex's own readers of history and queries open them with the same keys.
    expect((await RunHistory.of(handle)).input<TaskInput>()?.description).toContain(PROMPT_MARK);
    const status = await runDex(['status', handle.workflowId, '--json'], { env: { ...dex.cliEnv(), DEX_CODEC_KEYS: `k2:${K2},k1:${K1}` }, timeoutMs: 60_000 });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ state: 'completed' });
  });
});
