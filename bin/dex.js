#!/usr/bin/env node
// The CLI is TypeScript; tsx compiles it on load so `npx dex` works straight after `npm ci`.
require('tsx/cjs/api').register();
require('../client/cli.ts').runCli();
