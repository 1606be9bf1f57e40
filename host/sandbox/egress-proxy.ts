import { lookup } from 'node:dns/promises';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, connect, type Socket } from 'node:net';
import { join } from 'node:path';

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

/** True when `host` is named by `allowed` (an exact name, or `*.suffix` for its subdomains). */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return allowed.some((pattern) => {
    const p = pattern.toLowerCase();
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

/** Resolves a host name to the one address the connection goes to; refuses addresses of this host. */
export type AddressResolver = (host: string) => Promise<string>;

/** DNS, once per connection: the connection then goes to that address, so a second answer cannot rebind it. */
const remoteAddress: AddressResolver = async (host) => {
  const { address } = await lookup(host);
  if (isHostLocal(address)) throw new Error(`${host} resolves to ${address}, an address of this host`);
  return address;
};

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
  opts: { resolve?: AddressResolver } = {},
): Promise<EgressProxy> {
  const resolveAddress = opts.resolve ?? remoteAddress;
  const resolveAllowed = async (host: string): Promise<string> => {
    if (!hostAllowed(host, allowed)) throw new Error(`${host} is not in sandbox.allowHosts`);
    return resolveAddress(host);
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
    resolveAllowed(url.hostname).then(
      (address) => {
        const upstream = httpRequest(
          { host: address, port: url.port || 80, path: `${url.pathname}${url.search}`, method: req.method, headers: { ...req.headers, host: url.host } },
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
    const [host, port] = (req.url ?? '').split(/:(?=\d+$)/);
    resolveAllowed(host).then(
      (address) => {
        const upstream = connect(Number(port) || 443, address, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          upstream.write(head);
          upstream.pipe(client).pipe(upstream);
        });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
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
