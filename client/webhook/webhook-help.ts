/** `dex webhook`'s entry in the help table (client/command-help.ts, whose `satisfies` checks its shape), kept here beside the command. */
export const WEBHOOK_HELP = {
  synopsis: 'dex webhook',
  about:
    "Receives GitHub's webhooks and checks their signature: CI changes (check runs, check suites, statuses, workflow runs, pull requests) signal every running roadmap, so a landing waiting on a pull request goes on at once (docs/landing-through-prs.md#webhooks); an issue given the trigger label starts a run on it, on the fleet, landing through a pull request that fixes it; `@dex <request>` in an issue comment starts a run of the request, and `/dex approve|reject|retry` answers the run's gate, each from a person with write access; a review of dex's pull request is answered on it (docs/forge-triggers.md). With --poll it asks the forge instead of listening.",
  options: {
    port: { type: 'string', value: 'N', help: 'the port to listen on, 0 for a free one (this or --poll is needed)' },
    poll: { type: 'string', value: 'REPO', help: 'ask the forge repository (URL or OWNER/NAME, as --repo) for what a webhook would say, where no webhook can reach dex (docs/forge-triggers.md#polling)' },
    every: { type: 'string', value: 'SECONDS', help: 'with --poll: how often to ask (default: 30)' },
    host: { type: 'string', value: 'ADDR', help: 'the address to listen on (default: 0.0.0.0, every interface)' },
    'secret-env': { type: 'string', value: 'NAME', help: "the environment variable holding the webhook's secret (default: DEX_WEBHOOK_SECRET)" },
    label: { type: 'string', value: 'NAME', help: 'the issue label that starts a run on the issue (default: dex)' },
    handle: { type: 'string', value: 'NAME', help: 'the handle a comment asks for work with, `@NAME <request>` (default: dex)' },
  },
} as const;
