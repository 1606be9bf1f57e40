/**
 * `npx tsx bench/redaction-cost.ts`: what the one redaction step (core/safety/redaction.ts) costs per
 * MB of text, beside a JSON round trip of the same text measured in the same run (the least any
 * payload costs on its way to Temporal). Three kinds of text: tool output with nothing to remove
 * (the common case), the same with a secret every 4 KB, and a JSON payload as the codec sees it.
 */
import { createRedactor } from '../core/safety/redaction';
import { secretValues } from '../host/secrets/secret-values';
import { RedactingCodec } from '../client/server/redacting-codec';

const MB = 1024 * 1024;
const line = (i: number) => `src/module-${i % 97}.ts:${i}: expect(received).toBe(expected) // npm test output, stack frames and paths\n`;
function text(bytes: number, secretEvery = 0): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const l = secretEvery && i % Math.round(secretEvery / 90) === 0 ? `token https://x:ghp_${'a'.repeat(36)}@github.com/o/r and ${process.env.BENCH_SECRET}\n` : line(i);
    parts.push(l);
    size += l.length;
  }
  return parts.join('');
}

function msPer(work: () => void, mb: number, rounds = 5): number {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint();
    work();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return times.sort((a, b) => a - b)[Math.floor(rounds / 2)] / mb;
}

async function main(): Promise<void> {
  process.env.BENCH_SECRET = 'bench-secret-value-0123';
  // The variables of a worker: the model key, a token, and the rest of this environment.
  const redactor = createRedactor(secretValues({ ...process.env, ANTHROPIC_API_KEY: 'sk-ant-bench-key-0000', GITHUB_TOKEN: process.env.BENCH_SECRET }));
  const mb = 4;
  const clean = text(mb * MB);
  const dirty = text(mb * MB, 4096);
  const json = JSON.stringify({ preview: clean });
  const roundTrip = msPer(() => JSON.stringify(JSON.parse(json)), mb);
  const cleanMs = msPer(() => redactor.redact(clean), mb);
  const dirtyMs = msPer(() => redactor.redact(dirty), mb);
  const codec = new RedactingCodec(redactor);
  const payload = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify({ preview: dirty })) };
  const times: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t = process.hrtime.bigint();
    await codec.encode([payload]);
    times.push(Number(process.hrtime.bigint() - t) / 1e6 / mb);
  }
  const codecMs = times.sort((a, b) => a - b)[2];
  const row = (name: string, ms: number) => `${name.padEnd(46)} ${ms.toFixed(1).padStart(7)} ms/MB  ${(ms / roundTrip).toFixed(2)}× a JSON round trip`;
  console.log(`redaction, ${mb} MB of each text, median of 5, ${secretValues({ ...process.env }).length + 2} known secret values:`);
  console.log(row('JSON.parse + JSON.stringify (baseline)', roundTrip));
  console.log(row('redact: tool output, nothing to remove', cleanMs));
  console.log(row('redact: a secret every 4 KB', dirtyMs));
  console.log(row('codec: a JSON payload with a secret every 4 KB', codecMs));
}

void main();
