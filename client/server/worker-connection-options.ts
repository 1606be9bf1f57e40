import type { NativeConnectionOptions } from '@temporalio/worker';

/** Whether `address` (`host:port`) names this machine. */
export function isLoopbackAddress(address: string): boolean {
  const host = address.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The worker connection's options beyond address and credentials. Core gzips every request and
 * asks for gzipped replies by default; to a server on this machine that only spends CPU on both
 * sides, about 4 % of the dev server's at 64 runs at once (docs/performance.md#grpc-compression),
 * so dex turns it off there and keeps it for remote servers, where it saves bandwidth.
 */
export function workerConnectionOptions(address: string): Pick<NativeConnectionOptions, 'grpcCompression'> {
  return isLoopbackAddress(address) ? { grpcCompression: { codec: 'none' } } : {};
}
