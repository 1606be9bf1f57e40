import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, workerConnectionOptions } from '../../../client/server/worker-connection-options';

describe('the worker connection options', () => {
  it('turn gzip off for a server on this machine and keep it for any other', () => {
    for (const local of ['127.0.0.1:7233', 'localhost:7233', '[::1]:7233', '127.0.1.1:40000']) {
      expect(workerConnectionOptions(local)).toEqual({ grpcCompression: { codec: 'none' } });
    }
    for (const remote of ['10.0.0.5:7233', 'temporal.internal:7233', 'ns.a1b2c.tmprl.cloud:7233', '127.example.com:7233', '[2001:db8::1]:7233']) {
      expect(workerConnectionOptions(remote)).toEqual({});
    }
  });

  it('reads the host without its port', () => {
    expect(isLoopbackAddress('localhost')).toBe(true);
    expect(isLoopbackAddress('localhost.evil.com:7233')).toBe(false);
  });
});
