import { BlockList, connect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/**
 * The machine's own proxy (a corporate one), which dex's egress proxy goes through to reach a
 * registry, as every other tool of the machine does (docs/security.md#1-every-command-the-agent-causes-runs-in-bubblewrap): read from
 * HTTPS_PROXY / HTTP_PROXY / ALL_PROXY and NO_PROXY (either case) of the worker's environment.
 */
export interface UpstreamProxy {
  /** For CONNECT (HTTPS). */
  https?: URL;
  /** For plain HTTP requests. */
  http?: URL;
  /** NO_PROXY's entries: hosts reached directly. */
  noProxy: string[];
}

const pick = (env: NodeJS.ProcessEnv, ...names: string[]): string | undefined => names.map((name) => env[name]?.trim()).find(Boolean);

/** A proxy variable's value as a URL (`proxy:8080` is `http://proxy:8080`); undefined when it is none. */
function proxyUrl(value: string | undefined): URL | undefined {
  if (!value) return undefined;
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch {
    return undefined;
  }
}

/** The machine's proxy as `env` names it; undefined when it names none. */
export function upstreamProxyFrom(env: NodeJS.ProcessEnv): UpstreamProxy | undefined {
  const all = pick(env, 'ALL_PROXY', 'all_proxy');
  const https = proxyUrl(pick(env, 'HTTPS_PROXY', 'https_proxy') ?? all);
  const http = proxyUrl(pick(env, 'HTTP_PROXY', 'http_proxy') ?? all);
  if (!https && !http) return undefined;
  const noProxy = (pick(env, 'NO_PROXY', 'no_proxy') ?? '').split(/[\s,]+/).map((s) => s.trim().toLowerCase()).filter(Boolean);
  return { https, http, noProxy };
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * True when `host:port` is reached directly, not through the machine's proxy: NO_PROXY names it
 * (`*`, a host, `.domain` or `domain` with its subdomains, `host:port`, an address or a CIDR
 * range), or it is this host's loopback (`localhost`, 127.0.0.0/8, ::1), which no remote proxy can reach.
 */
export function bypassesProxy(host: string, port: number, noProxy: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const family = isIP(name);
  if (name === 'localhost' || (family && LOOPBACK.check(name, family === 4 ? 'ipv4' : 'ipv6'))) return true;
  return noProxy.some((raw) => {
    if (raw === '*') return true;
    const [, entryHost, entryPort] = /^(.*?)(?::(\d+))?$/.exec(raw.replace(/^\[|\]$/g, ''))!;
    if (entryPort && Number(entryPort) !== port) return false;
    if (entryHost.includes('/')) {
      const [base, bits] = entryHost.split('/');
      const entryFamily = isIP(base);
      if (!family || family !== entryFamily) return false;
      const range = new BlockList();
      range.addSubnet(base, Number(bits), entryFamily === 4 ? 'ipv4' : 'ipv6');
      return range.check(name, family === 4 ? 'ipv4' : 'ipv6');
    }
    const domain = entryHost.replace(/^\*?\./, '');
    return name === domain || name.endsWith(`.${domain}`);
  });
}

/** The Proxy-Authorization header for a proxy URL with `user:password@`, if it has one. */
export function proxyAuthorization(proxy: URL): Record<string, string> {
  if (!proxy.username) return {};
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** A socket to `host:port` through `proxy` (an HTTP CONNECT tunnel); rejects with one line when the proxy refuses. */
export function tunnelThrough(proxy: URL, host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const proxyPort = Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80);
    const socket: Socket =
      proxy.protocol === 'https:' ? tlsConnect({ host: proxy.hostname, port: proxyPort, servername: proxy.hostname }) : connect(proxyPort, proxy.hostname);
    const target = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
    const headers = Object.entries({ host: target, ...proxyAuthorization(proxy) }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => socket.write(`CONNECT ${target} HTTP/1.1\r\n${headers}\r\n`));
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.off('error', onError);
      const status = head.subarray(0, head.indexOf('\r\n')).toString();
      if (!/^HTTP\/1\.[01] 2\d\d/.test(status)) {
        socket.destroy();
        reject(new Error(`the machine's proxy ${proxy.host} answered "${status}" for ${target}`));
        return;
      }
      const rest = head.subarray(end + 4);
      if (rest.length) socket.unshift(rest);
      resolve(socket);
    };
    const onError = (err: Error) => reject(new Error(`the machine's proxy ${proxy.host} cannot be reached: ${err.message}`));
    socket.on('data', onData);
    socket.once('error', onError);
    // Settled already when the tunnel opened; before that, a proxy that hangs up has refused.
    socket.once('close', () => reject(new Error(`the machine's proxy ${proxy.host} closed the connection to ${target}`)));
  });
}
