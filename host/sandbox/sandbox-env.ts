import { HIDDEN_ENV } from '../../core/safety/sandbox-policy';

/** PATH inside the sandbox: the system folders, which are all that is mounted of the host. */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Nobody answers a sandboxed command, as in a CI job: test runners that watch by default (`vitest`,
 * `react-scripts test`) run once and exit instead of waiting out verify's timeout, and package
 * managers neither prompt nor draw progress (docs/real-repositories.md#verify-without-configuration).
 */
export const NO_ONE_AT_THE_TERMINAL: Readonly<Record<string, string>> = { CI: 'true' };

/** The sandbox's private home: an empty folder on the sandbox's own tmpfs. */
export const SANDBOX_HOME = '/home/dex';

/**
 * The complete environment of a sandboxed command, from an allowlist: bubblewrap itself is
 * started with it, so not even `/proc/1/environ` inside shows anything else of the worker's.
 * `extraNames` are the config's `sandbox.env`; the model's credentials never pass.
 */
export function sandboxEnv(
  extraNames: readonly string[],
  opts: { pathPrefix?: string; from?: NodeJS.ProcessEnv } = {},
): NodeJS.ProcessEnv {
  const from = opts.from ?? process.env;
  const env: NodeJS.ProcessEnv = {
    PATH: opts.pathPrefix ? `${opts.pathPrefix}:${SANDBOX_PATH}` : SANDBOX_PATH,
    HOME: SANDBOX_HOME,
    TMPDIR: '/tmp',
    LANG: from.LANG ?? 'C.UTF-8',
    TERM: from.TERM ?? 'dumb',
    // The repository's git metadata is read-only in the sandbox: git status must not try to lock it.
    GIT_OPTIONAL_LOCKS: '0',
    ...NO_ONE_AT_THE_TERMINAL,
  };
  for (const name of extraNames) {
    if (!HIDDEN_ENV.test(name) && from[name] !== undefined) env[name] = from[name];
  }
  return env;
}
