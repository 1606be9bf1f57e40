// The real `dex webhook` (bin/dex.js), spawned on a free port of 127.0.0.1 with `env`, for the tests
// that post GitHub's deliveries to it as GitHub would (docs/landing-through-prs.md#webhooks).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface WebhookProcess {
  process: ChildProcess;
  /** Where it receives: http://127.0.0.1:PORT/. */
  url: string;
  /** What it logged on stderr so far. */
  log(): string;
}

/** Starts `dex webhook` (with `args` too: `--poll REPO`) and resolves once it says where it listens; rejects with its log if it exits first. */
export async function spawnWebhook(env: NodeJS.ProcessEnv, args: string[] = []): Promise<WebhookProcess> {
  const child = spawn(process.execPath, [join(__dirname, '..', '..', '..', 'bin', 'dex.js'), 'webhook', '--port', '0', '--host', '127.0.0.1', ...args], {
    env: { ...process.env, NODE_OPTIONS: undefined, ...env },
  });
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const found = /http:\/\/127\.0\.0\.1:\d+\//.exec(out);
      if (found) resolve(found[0]);
    });
    child.once('exit', (code) => reject(new Error(`dex webhook exited ${code}: ${log}`)));
  });
  return { process: child, url, log: () => log };
}
