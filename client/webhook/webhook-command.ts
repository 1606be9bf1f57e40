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
import { startPolling } from './forge-poller';
import { checkForgeRepository } from '../fleet/forge-repo-check';
import type { IssueComment, IssueTrigger, ReviewDelivery } from './github-events';

const DEFAULT_SECRET_ENV = 'DEX_WEBHOOK_SECRET';
/** The issue label that starts a run on the issue (docs/forge-triggers.md). */
const DEFAULT_LABEL = 'dex';
/** The handle a comment asks dex for work with: `@dex <request>`. */
const DEFAULT_HANDLE = 'dex';

/** How often `--poll` asks the forge when `--every` says nothing: GitHub allows 5,000 requests an hour, and a round costs a few. */
const DEFAULT_POLL_SECONDS = 30;

/** `--every`: whole seconds, at least 1; only with `--poll`. */
function pollInterval(value: string | undefined, poll: string | undefined): number {
  if (value === undefined) return DEFAULT_POLL_SECONDS * 1000;
  if (poll === undefined) throw new InvalidInput('--every goes with --poll: how often to ask the forge');
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidInput(`--every: expected whole seconds, at least 1, got "${value}"`);
  return Number(value) * 1000;
}

function portOf(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new InvalidInput(`--port: expected a port number (0 picks a free one), got "${value}"`);
  return port;
}

/**
 * `dex webhook --port N [--host ADDR] [--secret-env NAME]`: receives GitHub's webhooks and
 * signals the running roadmaps, until SIGINT or SIGTERM (docs/landing-through-prs.md#webhooks);
 * `--poll REPO [--every S]` asks the forge instead, where no webhook reaches (docs/forge-triggers.md#polling).
 */
export async function webhookCommand(argv: string[], out: Output): Promise<number> {
  const values = parseOptionsOnly(argv, 'webhook');
  if (values.port === undefined && values.poll === undefined) throw new UsageError(`--port or --poll is required: ${usageOf('webhook')}`);
  const port = values.port === undefined ? undefined : portOf(values.port);
  const everyMs = pollInterval(values.every, values.poll);
  const secretEnv = values['secret-env'] ?? DEFAULT_SECRET_ENV;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(secretEnv)) throw new InvalidInput(`--secret-env: expected an environment variable's name, got "${secretEnv}"`);
  const secret = process.env[secretEnv];
  // Unsigned deliveries would let anyone on the network wake every roadmap: no secret, no receiver.
  if (port !== undefined && !secret?.trim()) {
    throw new InvalidInput(`${secretEnv} is not set: dex webhook needs the secret the GitHub webhook signs its deliveries with (docs/landing-through-prs.md#webhooks)`);
  }
  const polled = values.poll === undefined ? undefined : await checkForgeRepository(values.poll);
  if (values.poll !== undefined && !polled) throw new InvalidInput(`--poll ${values.poll}: a folder; --poll takes a forge repository (URL or OWNER/NAME)`);
  const label = values.label?.trim() || DEFAULT_LABEL;
  const handle = values.handle?.trim().replace(/^@/, '') || DEFAULT_HANDLE;
  const settings = readSettings();
  const conns = await connectSaying(settings, out.info, { forRuns: true });
  const answers = {
    startIssue: (trigger: IssueTrigger) => startIssueRun(conns.client, trigger, settings),
    answerComment: async (comment: IssueComment) => (await answerGateCommand(conns.client, comment)) ?? (await answerRequest(conns.client, comment, handle, settings)),
    answerReview: (review: ReviewDelivery) => answerReview(conns.client, review),
    log: out.info,
  };
  try {
    const server = port === undefined ? undefined : await startWebhookServer({
      ...answers,
      secret: secret!,
      port,
      host: values.host ?? '0.0.0.0',
      signal: (event) => signalCiChange(conns.client, event),
      label,
    }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') throw new InvalidInput(`--port ${port} is in use: pick another`);
      if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') throw new InvalidInput(`--host ${values.host}: not an address of this host`);
      throw err;
    });
    if (server) out.info(`receiving GitHub webhooks at ${server.url} (signed with ${secretEnv}); signalling the running roadmaps on ${conns.address}; issues labelled ${label} and @${handle} requests start a run`);
    const poller = polled && startPolling(polled, { everyMs, label, since: new Date().toISOString() }, answers);
    if (polled) out.info(`polling ${polled.owner}/${polled.repo} every ${everyMs / 1000} s for issues labelled ${label}, comments and reviews; runs on ${conns.address}`);
    out.result(server?.url ?? `${polled!.owner}/${polled!.repo}`, server ? { url: server.url, secretEnv } : { polling: `${polled!.owner}/${polled!.repo}` });
    const stop = new AbortController();
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => stop.abort());
    await once(stop.signal, 'abort');
    await Promise.all([server?.close(), poller?.stop()]);
    return 0;
  } finally {
    await conns.close();
  }
}
