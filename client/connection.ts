import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { startDevServerDetached } from './dev-server';
import { ServerUnreachable } from './server-unreachable';
import { installRuntimeLogging } from './runtime-logging';
import { EMBEDDED_ADDRESS, type Settings } from './settings';

/** A client and a worker connection to the same server. */
export interface Connections {
  address: string;
  client: Client;
  connection: Connection;
  nativeConnection(): Promise<NativeConnection>;
  close(): Promise<void>;
}

async function tryConnect(address: string, timeoutMs: number): Promise<Connection | undefined> {
  try {
    return await Connection.connect({ address, connectTimeout: timeoutMs });
  } catch {
    return undefined;
  }
}

/**
 * Connects to TEMPORAL_ADDRESS, or, when unset, to the embedded dev server, starting it in
 * the background first when nothing answers there (docs/interfaces.md#plans-workflows-and-ids).
 */
export async function connect(settings: Settings, log: (line: string) => void): Promise<Connections> {
  const address = settings.address ?? EMBEDDED_ADDRESS;
  let connection = await tryConnect(address, 3_000);
  if (!connection && !settings.address) {
    log(`starting the embedded Temporal dev server at ${address} (data in ${settings.dexHome})…`);
    startDevServerDetached(settings.dexHome, log);
    const deadline = Date.now() + 60_000;
    while (!connection && Date.now() < deadline) connection = await tryConnect(address, 2_000);
  }
  if (!connection) throw new ServerUnreachable(`Temporal server unreachable at ${address}`);
  const conn = connection;
  let native: NativeConnection | undefined;
  return {
    address,
    connection: conn,
    client: new Client({ connection: conn, namespace: settings.namespace }),
    nativeConnection: async () => {
      installRuntimeLogging('ERROR');
      return (native ??= await NativeConnection.connect({ address }));
    },
    close: async () => {
      await native?.close();
      await conn.close();
    },
  };
}
