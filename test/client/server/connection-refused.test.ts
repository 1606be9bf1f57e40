import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { refused } from '../../../client/server/connection';

describe('telling a port nobody listens on from one that answers', () => {
  it('says refused at once for a closed port, and not for a listening one', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await refused(address)).toBe(false);
    await new Promise((resolve) => server.close(resolve));
    const started = Date.now();
    expect(await refused(address)).toBe(true);
    // The gRPC connect it spares waited its whole 3 s timeout.
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
