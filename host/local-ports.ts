/** Ports on this host's loopback: one to listen on, and whether a server answers on one (the test server's JVM, the Web UI screenshots, tests). */
import { createServer, Socket } from 'node:net';

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

/** Whether something listens on `port` of 127.0.0.1. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = new Socket();
    const done = (ok: boolean) => { s.destroy(); res(ok); };
    s.setTimeout(1_000, () => done(false));
    s.once('error', () => done(false));
    s.connect(port, '127.0.0.1', () => done(true));
  });
}
