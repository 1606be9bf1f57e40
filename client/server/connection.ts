import { createConnection } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { startDevServerDetached } from './dev-server';
import { InvalidInput } from '../../core/run/invalid-input';
import { missingSearchAttributes, registerSearchAttributes } from './search-attribute-setup';
import { ServerUnreachable } from '../../core/run/server-unreachable';
import { installRuntimeLogging } from './runtime-logging';
import { codecFromEnv, dexDataConverter } from './payload-codec';
import { readConnectionSecurity, type ConnectionSecurity } from './connection-security';
import { clientInterceptors } from '../../tracing/tracing';
import { EMBEDDED_ADDRESS, type Settings } from '../settings';
import { workerConnectionOptions } from './worker-connection-options';

/** What a command needs of its connection. */
export interface ConnectOptions {
  /** It starts runs: the namespace needs dex's search attributes, and it waits for the workflow host. */
  forRuns?: boolean;
  /** @default true: on the embedded server, start the workflow host when none polls (client/run/slow-wait.ts connectSaying). */
  workflowHost?: boolean;
  /** @default true: start the embedded server when nothing answers (false: wait for the one starting). */
  startEmbedded?: boolean;
}

/** A client and a worker connection to the same server. */
export interface Connections {
  address: string;
  client: Client;
  connection: Connection;
  /** The payload codec `DEX_CODEC_KEYS` asks for; a worker this command starts uses it too. */
  dataConverter: DataConverter;
  nativeConnection(): Promise<NativeConnection>;
  /**
   * A client on the worker connection: a run started through it with `requestEagerStart` has its
   * first workflow task handed to the worker in this process in the start call's reply.
   */
  workerClient(): Promise<Client>;
  close(): Promise<void>;
}

/**
 * Whether nothing listens at `address` (the connection is refused at once). The gRPC connect
 * waits its whole timeout on a refused port, so a fresh machine's first command spent 3 s before
 * starting the embedded server (docs/fresh-machine.md#measured).
 */
export function refused(address: string): Promise<boolean> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 1_000 });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once('connect', () => done(false));
    socket.once('timeout', () => done(false));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED'));
  });
}

async function tryConnect(address: string, timeoutMs: number, security: ConnectionSecurity = {}): Promise<Connection | undefined> {
  try {
    return await Connection.connect({ address, connectTimeout: timeoutMs, ...security });
  } catch {
    return undefined;
  }
}

/**
 * Makes sure the namespace has dex's search attributes before runs start there: registers the
 * missing ones (dex's own server always allows it), and otherwise stops with what to run, since
 * a run's first upsert would fail on a namespace without them.
 */
async function ensureSearchAttributes(connection: Connection, settings: Settings, log: (line: string) => void): Promise<void> {
  const missing = await missingSearchAttributes(connection, settings.namespace);
  if (!missing?.length) return;
  try {
    await registerSearchAttributes(connection, settings.namespace);
    log(`registered dex's search attributes on namespace ${settings.namespace}: ${missing.join(', ')}`);
  } catch (err) {
    throw new InvalidInput(
      `namespace ${settings.namespace} lacks dex's search attributes (${missing.join(', ')}) and they could not be added ` +
        `(${(err as Error).message.split('\n')[0]}): run \`dex setup-namespace\` with an operator's credentials`,
    );
  }
}

/**
 * Connects to TEMPORAL_ADDRESS, or, when unset, to the embedded dev server, starting it in
 * the background first when nothing answers there (docs/interfaces.md#plans-workflows-and-ids).
 * `forRuns`: the command starts runs, so the namespace must have dex's search attributes.
 */
export async function connect(settings: Settings, log: (line: string) => void, opts: ConnectOptions = {}): Promise<Connections> {
  // Read before anything connects, so a malformed key stops the command at once (exit 2).
  const dataConverter = dexDataConverter(codecFromEnv());
  const address = settings.address ?? EMBEDDED_ADDRESS;
  // TLS and an API key are for servers the user names (self-hosted, Cloud); the embedded one has neither.
  const security = settings.address ? readConnectionSecurity() : {};
  let connection = !settings.address && (await refused(address)) ? undefined : await tryConnect(address, 3_000, security);
  if (!connection && !settings.address) {
    if (opts.startEmbedded !== false) {
      log(`starting the embedded Temporal dev server at ${address} (data in ${settings.dexHome})…`);
      startDevServerDetached(settings.dexHome, log);
    }
    const deadline = Date.now() + 60_000;
    while (!connection && Date.now() < deadline) connection = await tryConnect(address, 2_000);
  }
  if (!connection) throw new ServerUnreachable(`Temporal server unreachable at ${address}`);
  const conn = connection;
  if (opts.forRuns) await ensureSearchAttributes(conn, settings, log);
  let native: NativeConnection | undefined;
  const nativeConnection = async () => {
    installRuntimeLogging('ERROR');
    return (native ??= await NativeConnection.connect({ address, ...security, ...workerConnectionOptions(address) }));
  };
  const clientOn = (connection: Connection | NativeConnection) =>
    new Client({ connection, namespace: settings.namespace, dataConverter, interceptors: { workflow: clientInterceptors() } });
  let workerClient: Client | undefined;
  const client = clientOn(conn);
  return {
    address,
    connection: conn,
    dataConverter,
    client,
    nativeConnection,
    workerClient: async () => (workerClient ??= clientOn(await nativeConnection())),
    close: async () => {
      await native?.close();
      await conn.close();
    },
  };
}
