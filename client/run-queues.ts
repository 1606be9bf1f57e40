import { createHash } from 'node:crypto';
import { userInfo } from 'node:os';
import { readSettings, type Settings } from './settings';

/**
 * The activity queue of the runs a person starts in the foreground (docs/architecture.md#who-serves-a-run):
 * this host's queue with a fingerprint of what the activities act with — the OS user, DEX_HOME, the
 * store, and the model credentials and endpoint. The command that starts a run serves it; once that
 * command is gone, a `dex worker` started with the same environment polls the same queue and carries
 * the run on, and no worker holding another person's key ever does. The fingerprint is a truncated
 * SHA-256, so the key itself never appears in a queue name.
 */
export function ownerQueue(settings: Settings, env: NodeJS.ProcessEnv = process.env): string {
  const parts = [
    safeUser(),
    settings.dexHome,
    settings.store.kind === 'sqlite' ? settings.store.path : settings.store.url,
    env.ANTHROPIC_API_KEY ?? '',
    env.ANTHROPIC_BASE_URL ?? '',
  ];
  const fingerprint = createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 12);
  return `${settings.hostQueue}~${fingerprint}`;
}

/** The OS user's name; a user with no passwd entry (a container's arbitrary uid) is its uid. */
function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return String(process.getuid?.() ?? '');
  }
}

/**
 * The settings of a command that serves its own runs (`task`, `run`, `layer`, `sheet` without
 * `--detach`; docs/architecture.md#who-serves-a-run): workflow tasks on the shared queue, which any
 * worker may run since workflow code holds no credentials, so the run answers queries after this
 * command is gone; activities on its owner's queue (ownerQueue above), served by this command
 * or, after it, by a `dex worker` with the same key, never by anyone else's. Detached runs stay on
 * the shared host queue, for a `dex worker` to serve with its own credentials.
 */
export function commandSettings(detach: boolean | undefined, settings: Settings = readSettings(), env: NodeJS.ProcessEnv = process.env): Settings {
  if (detach) return settings;
  return { ...settings, hostQueue: ownerQueue(settings, env) };
}
