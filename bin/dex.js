#!/usr/bin/env node
// The CLI is TypeScript. It runs from one file bundled once per code version into dex's cache
// (bin/cli-bundle.js); where that cannot be had, tsx compiles it on load, so `npx dex` always works
// straight after `npm ci`.
'use strict';

// Commands that host a worker: an activity's failure carries its stack to the Web UI, so their
// stacks name dex's .ts files (the bundle's map, ~55 ms a start); the others skip that cost.
const HOST_A_WORKER = new Set(['task', 'run', 'layer', 'sheet', 'demo', 'worker', 'server', 'replay-test']);

require('./cli-bundle.js')
  .cliBundle()
  .then((bundle) => {
    if (bundle) {
      if (HOST_A_WORKER.has(process.argv[2])) process.setSourceMapsEnabled(true);
      require(bundle).runCli();
    } else {
      require('tsx/cjs/api').register();
      require('../client/cli.ts').runCli();
    }
  });
