import { once } from 'node:events';
import { InvalidInput } from '../../core/run/invalid-input';
import { parseOptionsOnly, type Output } from '../cli-context';
import { startCodecServer } from '../server/codec-server';
import { CODEC_KEYS_ENV, codecFromEnv } from '../server/payload-codec';
import { EMBEDDED_UI } from '../settings';

/** The port Temporal's codec server samples use. */
const DEFAULT_PORT = 8888;

function portOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new InvalidInput(`--port: expected a port number (0 picks a free one), got "${value}"`);
  return port;
}

function originsOf(value: string | undefined): string[] {
  const origins = (value ?? EMBEDDED_UI).split(',').map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean);
  for (const origin of origins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) throw new InvalidInput(`--origin: expected a URL such as ${EMBEDDED_UI}, got "${origin}"`);
  }
  return origins;
}

/**
 * `dex codec-server`: decodes and encodes payloads with the keys of `DEX_CODEC_KEYS` for the
 * stock Temporal CLI and the Web UI, on loopback, until SIGINT or SIGTERM
 * (docs/production.md#payload-encryption).
 */
export async function codecServerCommand(argv: string[], out: Output): Promise<number> {
  const values = parseOptionsOnly(argv, 'codec-server');
  const port = portOf(values.port);
  const origins = originsOf(values.origin);
  const codec = codecFromEnv();
  if (!codec) throw new InvalidInput(`dex codec-server needs ${CODEC_KEYS_ENV} (the keys the workers seal payloads with)`);
  const server = await startCodecServer({ codec, port, origins }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') throw new InvalidInput(`--port ${port} is in use: pick another`);
    throw err;
  });
  out.info(`codec server for the Web UI at ${origins.join(', ')}; sealing with key "${codec.encryptingKeyId}"`);
  out.info(`use it: temporal workflow show --workflow-id ID --codec-endpoint ${server.url}`);
  out.result(server.url, { url: server.url, origins, encryptingKeyId: codec.encryptingKeyId });
  const stop = new AbortController();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => stop.abort());
  await once(stop.signal, 'abort');
  await server.close();
  return 0;
}
