// The spawner's child (host/spawner/spawner.ts): a small Node process that runs the
// commands the worker sends it, one JSON line each on stdin, and answers with one JSON line each
// on stdout. Plain JavaScript with no dependencies, so it starts without tsx and stays small:
// what it forks is cheap to copy (docs/performance.md#real-turns).
'use strict';
const { execFile } = require('node:child_process');
const { createInterface } = require('node:readline');

const STDERR_CHARS = 4096;

function answer(reply) {
  process.stdout.write(`${JSON.stringify(reply)}\n`);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return; // not a request: nothing to answer
  }
  const { id, file, args, cwd, env, maxBuffer } = request;
  execFile(file, args, { cwd, env, maxBuffer, encoding: 'buffer' }, (err, stdout, stderr) => {
    const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
    answer({
      id,
      code,
      signal: err?.signal ?? null,
      // A spawn that never ran (ENOENT, EACCES) or output over maxBuffer: the error's own words.
      error: err && typeof err.code !== 'number' && !err.signal ? String(err.message) : undefined,
      stdout: Buffer.from(stdout ?? '').toString('base64'),
      stderr: Buffer.from(stderr ?? '').toString('utf8').slice(0, STDERR_CHARS),
    });
  });
});
process.stdin.on('end', () => process.exit(0));
