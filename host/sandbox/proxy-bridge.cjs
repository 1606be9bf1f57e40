// Runs inside the sandbox (plain Node, no dependencies): the sandbox has no network but its own
// loopback, so this forwards 127.0.0.1:3128 to the egress proxy's Unix socket mounted from the
// host. The proxy outside decides which hosts are reached. See docs/security.md.
'use strict';
const net = require('node:net');
const fs = require('node:fs');

const socketPath = process.argv[2];
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
});
server.listen(3128, '127.0.0.1', () => fs.writeFileSync('/tmp/.dex-proxy-ready', ''));
