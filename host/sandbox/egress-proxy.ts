import { lookup } from 'node:dns/promises';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { bypassesProxy, proxyAuthorization, tunnelThrough, upstreamProxyFrom, type UpstreamProxy } from './upstream-proxy';

/** Where the proxy's socket appears inside the sandbox. */
export const PROXY_SOCKET_INSIDE = '/run/dex/proxy.sock';
/** Where the bridge script appears inside the sandbox. */
export const BRIDGE_PATH_INSIDE = '/run/dex/proxy-bridge.cjs';
/** The proxy address commands inside use (the bridge listens there, on the sandbox's own loopback). */
export const PROXY_URL_INSIDE = 'http://127.0.0.1:3128';

/** The bridge script on the host (plain JavaScript: it runs inside the sandbox with Node alone). */
export const bridgeScriptPath = (): string => join(__dirname, 'proxy-bridge.cjs');

/** A running egress proxy. */
export interface EgressProxy {
  socketPath: string;
  close(): Promise<void>;
}

/** An entry of allowHosts split into its name and its port (`npm.internal:8443`); no port, any port. */
function splitEntry(entry: string): { pattern: string; port?: number } {
  const [, pattern, port] = /^(.*?)(?::(\d+))?$/.exec(entry.toLowerCase())!;
  return { pattern, port: port ? Number(port) : undefined };
}

/** True when `host` (on `port`, when given) is named by `allowed`: an exact name or `*.suffix` for its subdomains, with `:port` only that port. */
export function hostAllowed(host: string, allowed: readonly string[], port?: number): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return allowed.some((entry) => {
    const { pattern: p, port: only } = splitEntry(entry);
    if (only !== undefined && only !== port) return false;
    return p.startsWith('*.') ? name.endsWith(p.slice(1)) && name.length > p.length - 1 : name === p;
  });
}

/** True for addresses of this host or its link: loopback, unspecified, link-local (cloud metadata). */
export function isHostLocal(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) return /^(127\.|0\.|169\.254\.)/.test(v4);
  const v6 = address.toLowerCase();
  return v6 === '::1' || v6 === '::' || v6.startsWith('fe80:');
}

/** Resolves a host name to the one address the connection goes to; refuses addresses of this host unless `local` allows them. */
type AddressResolver = (host: string, local?: boolean) => Promise<string>;

/** The refusal of a name that resolves to an address of this host. */
export class HostLocalAddress extends Error {}

/** DNS, once per connection: the connection then goes to that address, so a second answer cannot rebind it. */
const remoteAddress: AddressResolver = async (host, local = false) => {
  const { address } = await lookup(host);
  if (!local && isHostLocal(address)) throw new HostLocalAddress(`${host} resolves to ${address}, an address of this host (only setup.allowHosts opens one, naming it with its port)`);
  return address;
};

/** What else decides where the egress proxy's connections go. */
interface EgressOptions {
  /** Replaces DNS (tests). */
  resolve?: AddressResolver;
  /**
   * `host:port` entries that may be an address of this host: setup's private registry on
   * 127.0.0.1 that `setup.allowHosts` names with its port. Never given for the agent's commands.
   */
  localHosts?: readonly string[];
  /** The machine's proxy the connections go through. @default what the worker's environment names (upstream-proxy.ts) */
  upstream?: UpstreamProxy;
}

function refuse(res: ServerResponse, why: string): void {
  res.writeHead(403, { 'content-type': 'text/plain' }).end(`dex sandbox: ${why}\n`);
}

/**
 * Starts an HTTP proxy on the Unix socket `socketPath` that lets through only `allowed` hosts
 * (CONNECT for HTTPS, absolute-URI requests for HTTP), never to an address of this host.
 */
export async function startEgressProxy(
  allowed: readonly string[],
  socketPath: string,
  opts: EgressOptions = {},
): Promise<EgressProxy> {
  const resolveAddress = opts.resolve ?? remoteAddress;
  const upstream = 'upstream' in opts ? opts.upstream : upstreamProxyFrom(process.env);
  const localHosts = new Set((opts.localHosts ?? []).map((entry) => entry.toLowerCase()));
  const check = (host: string, port: number): boolean => {
    if (!hostAllowed(host, allowed, port)) {
      const anyPort = allowed.some((entry) => hostAllowed(host, [entry.replace(/:\d+$/, '')]));
      throw new Error(`${anyPort ? `${host}:${port}` : host} is not in sandbox.allowHosts`);
    }
    return localHosts.has(`${host.toLowerCase()}:${port}`);
  };
  /** The machine's proxy to go through for `host:port`, or none (no proxy, or NO_PROXY names it). */
  const viaUpstream = (proxy: URL | undefined, host: string, port: number): URL | undefined =>
    proxy && !bypassesProxy(host, port, upstream!.noProxy) ? proxy : undefined;
  /** Through the machine's proxy, which resolves the name: refused still when this host's DNS says it is an address of this host. */
  const refuseLocalName = async (host: string, local: boolean): Promise<void> => {
    if (local) return;
    // A name this host cannot resolve is the machine's proxy's to resolve (a network whose DNS is the proxy's).
    await resolveAddress(host).catch((err: Error) => {
      if (err instanceof HostLocalAddress) throw err;
    });
  };
  const resolveAllowed = async (host: string, port: number): Promise<string> => resolveAddress(host, check(host, port));
  /** A socket to `host:port` for a CONNECT: through the machine's proxy, or to the address the name resolved to. */
  const open = async (host: string, port: number): Promise<Socket> => {
    const local = check(host, port);
    const proxy = viaUpstream(upstream?.https, host, port);
    if (proxy) {
      await refuseLocalName(host, local);
      return tunnelThrough(proxy, host, port);
    }
    const address = await resolveAddress(host, local);
    return new Promise((resolve, reject) => {
      const socket = connect(port, address, () => {
        socket.off('error', reject);
        resolve(socket);
      });
      socket.once('error', reject);
    });
  };
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      refuse(res, 'only absolute http:// URLs and CONNECT go through this proxy');
      return;
    }
    const port = Number(url.port) || 80;
    const proxy = upstream && viaUpstream(upstream.http, url.hostname, port);
    const target = proxy
      ? Promise.resolve()
          .then(() => check(url.hostname, port))
          .then((local) => refuseLocalName(url.hostname, local))
          .then(() => ({ host: proxy.hostname, port: Number(proxy.port) || 80, path: url.href, auth: proxyAuthorization(proxy) }))
      : resolveAllowed(url.hostname, port).then((address) => ({ host: address, port, path: `${url.pathname}${url.search}`, auth: {} }));
    target.then(
      ({ host, port: to, path, auth }) => {
        const upstream = httpRequest(
          { host, port: to, path, method: req.method, headers: { ...req.headers, host: url.host, ...auth } },
          (reply) => {
            res.writeHead(reply.statusCode ?? 502, reply.headers);
            reply.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        req.pipe(upstream);
      },
      (err: Error) => refuse(res, err.message),
    );
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const [host, port] = (req.url ?? '').replace(/^\[(.*)\](?=:)/, '$1').split(/:(?=\d+$)/);
    client.on('error', () => client.destroy());
    open(host, Number(port) || 443).then(
      (upstream) => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client).pipe(upstream);
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
      },
      (err: Error) => client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\ndex sandbox: ${err.message}\n`),
    );
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  return {
    socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
