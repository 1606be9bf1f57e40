/**
 * The dex-worker container's health check (docker-compose.yml): healthy while a worker on this
 * host polls its host queue on the server. Exit 0 healthy, 1 not (Docker's convention).
 */
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { hostname } from 'node:os';
import { readConnectionSecurity } from '../client/server/connection-security';
import { readSettings } from '../client/settings';

async function main(): Promise<number> {
  const settings = readSettings();
  const connection = await Connection.connect({ address: settings.address ?? '127.0.0.1:7233', connectTimeout: 5_000, ...readConnectionSecurity() });
  try {
    const client = new Client({ connection, namespace: settings.namespace });
    const { pollers } = await client.workflowService.describeTaskQueue({
      namespace: settings.namespace,
      taskQueue: { name: settings.hostQueue },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    // A poller's identity is `<pid>@<hostname>`: this container's worker, not another host's.
    return (pollers ?? []).some((p) => p.identity?.endsWith(`@${hostname()}`)) ? 0 : 1;
  } finally {
    await connection.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`unhealthy: ${(err as Error).message.split('\n')[0]}`);
    process.exit(1);
  },
);
