import { once } from 'node:events';
import { InvalidInput } from '../../core/run/invalid-input';
import { parseOptionsOnly, UsageError, type Output } from '../cli-context';
import { usageOf } from '../command-help';
import { connectSaying } from '../run/slow-wait';
import { readSettings } from '../settings';
import { startWebhookServer } from './webhook-server';
import { startIssueRun } from './issue-runs';
import { answerGateCommand } from './gate-commands';
import { answerRequest } from './request-commands';
import { signalCiChange } from './ci-routing';
import { answerReview } from './review-routing';

const DEFAULT_SECRET_ENV = 'DEX_WEBHOOK_SECRET';
/** The issue label that starts a run on the issue (docs/forge-triggers.md). */
const DEFAULT_LABEL = 'dex';
/** The handle a comment asks dex for work with: `@dex <request>`. */
const DEFAULT_HANDLE = 'dex';

function portOf(value: string | undefined): number {
  if (value === undefined) throw new UsageError(`--port is required: ${usageOf('webhook')}`);
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new InvalidInput(`--port: expected a port number (0 picks a free one), got "${value}"`);
  return port;
}

/**
 * `dex webhook --port N [--host ADDR] [--secret-env NAME]`: receives GitHub's webhooks and
 * signals the running roadmaps, until SIGINT or SIGTERM (docs/landing-through-prs.md#webhooks).
 */
export async function webhookCommand(argv: string[], out: Output): Promise<number> {
  const values = parseOptionsOnly(argv, 'webhook');
  const port = portOf(values.port);
  const secretEnv = values['secret-env'] ?? DEFAULT_SECRET_ENV;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(secretEnv)) throw new InvalidInput(`--secret-env: expected an environment variable's name, got "${secretEnv}"`);
  const secret = process.env[secretEnv];
  // Unsigned deliveries would let anyone on the network wake every roadmap: no secret, no receiver.
  if (!secret?.trim()) {
    throw new InvalidInput(`${secretEnv} is not set: dex webhook needs the secret the GitHub webhook signs its deliveries with (docs/landing-through-prs.md#webhooks)`);
  }
  const label = values.label?.trim() || DEFAULT_LABEL;
  const handle = values.handle?.trim().replace(/^@/, '') || DEFAULT_HANDLE;
  const settings = readSettings();
  const conns = await connectSaying(settings, out.info, { forRuns: true });
  try {
    const server = await startWebhookServer({
      secret,
      port,
      host: values.host ?? '0.0.0.0',
      signal: (event) => signalCiChange(conns.client, event),
      label,
      startIssue: (trigger) => startIssueRun(conns.client, trigger, settings),
      answerComment: async (comment) => (await answerGateCommand(conns.client, comment)) ?? (await answerRequest(conns.client, comment, handle, settings)),
      answerReview: (review) => answerReview(conns.client, review),
      log: out.info,
    }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') throw new InvalidInput(`--port ${port} is in use: pick another`);
      if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') throw new InvalidInput(`--host ${values.host}: not an address of this host`);
      throw err;
    });
    out.info(`receiving GitHub webhooks at ${server.url} (signed with ${secretEnv}); signalling the running roadmaps on ${conns.address}; issues labelled ${label} and @${handle} requests start a run`);
    out.result(server.url, { url: server.url, secretEnv });
    const stop = new AbortController();
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => stop.abort());
    await once(stop.signal, 'abort');
    await server.close();
    return 0;
  } finally {
    await conns.close();
  }
}
