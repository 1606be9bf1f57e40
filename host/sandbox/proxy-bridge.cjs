// Runs inside the sandbox (plain Node, no dependencies): the sandbox has no network but its own
// loopback, so this forwards loopback ports to Unix sockets mounted from the host: 127.0.0.1:3128
// to the egress proxy (the proxy outside decides which hosts are reached; docs/security.md), and,
// for a Claude Code session, 127.0.0.1:3129 to dex's model relay (docs/claude-code.md).
// Arguments: `PORT=SOCKET` pairs (sandboxed-process.ts withBridge).
'use strict';
const net = require('node:net');
const fs = require('node:fs');

const pairs = process.argv.slice(2).map((arg) => {
  const at = arg.indexOf('=');
  return [Number(arg.slice(0, at)), arg.slice(at + 1)];
});
let listening = 0;
for (const [port, socketPath] of pairs) {
  const server = net.createServer((client) => {
    const upstream = net.connect(socketPath);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  server.listen(port, '127.0.0.1', () => {
    if (++listening === pairs.length) fs.writeFileSync('/tmp/.dex-proxy-ready', '');
  });
}
