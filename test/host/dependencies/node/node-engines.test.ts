import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSetup } from '../../../../core/run/setup-types';
import { nodePlan } from '../../../../host/dependencies/node/node-plan';
import { askedNode, projectNode } from '../../../../host/dependencies/node/node-engines';
import { nodeVersion, satisfies } from '../../../../host/dependencies/node/node-version-range';
import { ownerNodes } from '../../../../host/dependencies/node/owner-nodes';
import { engineRetry, recordedEngines, writeEngineRecord } from '../../../../host/dependencies/node/engine-retry';
import { folderWith, writeFiles } from '../../../support/projects/real-projects';

const v = (text: string) => nodeVersion(text)!;

/** A home with Node installations of nvm, fnm and volta (each a `bin/node` that prints its version). */
function ownerHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'dex-node-home-'));
  const node = (version: string) => `#!/bin/sh\necho v${version}\n`;
  const bins = {
    '.nvm/versions/node/v20.20.2/bin/node': node('20.20.2'),
    '.nvm/versions/node/v22.14.0/bin/node': node('22.14.0'),
    '.local/share/fnm/node-versions/v24.11.1/installation/bin/node': node('24.11.1'),
    '.volta/tools/image/node/18.20.4/bin/node': node('18.20.4'),
    // Not a version, or no node in it: not an installation.
    '.nvm/versions/node/system/bin/node': node('0.0.0'),
    '.nvm/versions/node/v23.0.0/README': '',
  };
  writeFiles(home, bins);
  for (const path of Object.keys(bins)) chmodSync(join(home, path), 0o755);
  return home;
}

const YARN_FAILURE = `[1/4] Resolving packages...\n[2/4] Fetching packages...\nerror string-width@9.0.0: The engine "node" is incompatible with this module. Expected version ">=22". Got "20.20.2"\nerror Found incompatible module.\n`;
const NPM_FAILURE = `npm error code EBADENGINE\nnpm error engine Unsupported engine\nnpm error engine Not compatible with your version of node/npm: string-width@9.0.0\nnpm error notsup Not compatible with your version of node/npm: string-width@9.0.0\nnpm error notsup Required: {"node":">=22"}\nnpm error notsup Actual:   {"node":"v20.20.2","npm":"11.19.1"}\n`;
const PNPM_FAILURE = ` ERR_PNPM_UNSUPPORTED_ENGINE  Unsupported environment (bad pnpm and/or Node.js version)\n\nYour Node version is incompatible with "string-width@9.0.0".\n\nExpected version: ^22.14.0 || >= 24.10.0\nGot: v20.20.2\n`;

describe('Node version ranges as engines.node writes them', () => {
  it.each([
    ['>=22', '22.0.0', true],
    ['>=22', '20.20.2', false],
    ['^22.14.0 || >= 24.10.0', '22.14.0', true],
    ['^22.14.0 || >= 24.10.0', '23.1.0', false],
    ['^22.14.0 || >= 24.10.0', '24.11.1', true],
    ['^20.19.0 || ^22.13.0 || >=24', '20.20.2', true],
    ['20.x', '20.20.2', true],
    ['~18.17', '18.20.4', false],
    ['18 - 20', '20.20.2', true],
    ['>16 <21', '20.20.2', true],
    ['>20', '20.20.2', false],
    ['<=20', '20.20.2', true],
    ['*', '18.20.4', true],
    ['not a range', '22.0.0', false],
  ])('%s with %s: %s', (range, version, expected) => {
    expect(satisfies(v(version), range)).toBe(expected);
  });
});

describe('a Node of the owner\'s for what the project asks (docs/real-repositories.md#node-engines)', () => {
  it("finds nvm's, fnm's and volta's installations, newest first", () => {
    expect(ownerNodes(ownerHome(), {}).map((n) => [n.version, n.manager])).toEqual([
      ['24.11.1', 'fnm'],
      ['22.14.0', 'nvm'],
      ['20.20.2', 'nvm'],
      ['18.20.4', 'volta'],
    ]);
  });

  it('reads engines.node, .nvmrc and .node-version; a name like lts/* asks nothing it can check', () => {
    const dir = folderWith({ 'package.json': JSON.stringify({ engines: { node: '>=22' } }), '.nvmrc': 'v22.14.0\n', '.node-version': 'lts/*\n' });
    expect(askedNode(dir)).toEqual([
      { range: '>=22', by: 'package.json' },
      { range: '^22.14.0', by: '.nvmrc' },
    ]);
  });

  it('uses the Node of the owner\'s that satisfies it (the newest of the lowest major) when the default does not, and says so; keeps the default otherwise', () => {
    const home = ownerHome();
    const nodes = () => ownerNodes(home, {});
    const node20 = join(home, '.nvm/versions/node/v20.20.2');
    const asks = (files: Record<string, string>) => projectNode(folderWith({ 'package.json': '{}', ...files }), { nodePrefix: node20 }, nodes);
    expect(asks({ '.nvmrc': '22\n' })).toEqual({ toolchains: { nodePrefix: join(home, '.nvm/versions/node/v22.14.0') }, note: 'engines: node ^22 asked (.nvmrc), 22.14.0 (nvm) used' });
    expect(asks({ 'package.json': JSON.stringify({ engines: { node: '>=24.10.0' } }) }).toolchains.nodePrefix).toBe(join(home, '.local/share/fnm/node-versions/v24.11.1/installation'));
    // Satisfied already, or asking what the owner has not: unchanged, nothing said.
    expect(asks({ 'package.json': JSON.stringify({ engines: { node: '>=18' } }) })).toEqual({ toolchains: { nodePrefix: node20 } });
    expect(asks({ 'package.json': JSON.stringify({ engines: { node: '>=26' } }) })).toEqual({ toolchains: { nodePrefix: node20 } });
  });
});

describe('an install that fails on a package\'s engines', () => {
  const yarn = nodePlan(folderWith({ 'package.json': '{}', 'yarn.lock': '# yarn lockfile v1\n' }))!;
  const npm = nodePlan(folderWith({ 'package.json': '{}', 'package-lock.json': '{}' }))!;
  const pnpm = nodePlan(folderWith({ 'package.json': '{}', 'pnpm-lock.yaml': "lockfileVersion: '9.0'\n" }))!;

  it("runs again with the manager's flag that only warns, as the owner would on this Node, and says what was asked by whom", () => {
    const none = () => [];
    expect(engineRetry(yarn, yarn.command, YARN_FAILURE, none)).toEqual({
      plan: yarn,
      command: 'yarn install --frozen-lockfile --non-interactive --ignore-engines',
      record: { note: 'engines: node >=22 asked (string-width@9.0.0), 20.20.2 used: --ignore-engines' },
    });
    expect(engineRetry(npm, npm.command, NPM_FAILURE, none)?.command).toBe('npm ci --no-audit --no-fund --engine-strict=false');
    expect(engineRetry(npm, npm.command, NPM_FAILURE, none)?.record.note).toBe('engines: node >=22 asked (string-width@9.0.0), 20.20.2 used: --engine-strict=false');
    expect(engineRetry(pnpm, pnpm.command, PNPM_FAILURE, none)?.record.note).toBe('engines: node ^22.14.0 || >= 24.10.0 asked (string-width@9.0.0), 20.20.2 used: --config.engine-strict=false');
    // Any other failure is not retried.
    expect(engineRetry(yarn, yarn.command, 'error Couldn\'t find package "nope" on the "npm" registry.\n', none)).toBeUndefined();
  });

  it("runs again on the owner's Node that satisfies the range where there is one: its bin before the default Node's, mounted", () => {
    const home = ownerHome();
    const retry = engineRetry({ ...yarn, binDirs: [...yarn.binDirs, '/opt/node20/bin'] }, yarn.command, PNPM_FAILURE.replace('ERR_PNPM', '') + YARN_FAILURE, () => ownerNodes(home, {}))!;
    const node22 = join(home, '.nvm/versions/node/v22.14.0');
    expect(retry.command).toBe(yarn.command);
    expect(retry.plan.binDirs).toEqual([...yarn.binDirs, join(node22, 'bin'), '/opt/node20/bin']);
    expect(retry.plan.toolchainPaths).toEqual([node22]);
    expect(retry.record).toEqual({ note: 'engines: node >=22 and ^22.14.0 || >= 24.10.0 asked (string-width@9.0.0), 22.14.0 (nvm) used', nodePrefix: node22 });
  });

  it('keeps what it did in node_modules: a restored worktree runs on the same Node, and the setup line says so', async () => {
    const home = ownerHome();
    const worktree = mkdtempSync(join(tmpdir(), 'dex-engines-'));
    expect(recordedEngines(yarn, worktree)).toEqual({ plan: yarn });
    const node22 = join(home, '.nvm/versions/node/v22.14.0');
    await writeEngineRecord(worktree, { note: 'engines: node >=22 asked (string-width@9.0.0), 22.14.0 (nvm) used', nodePrefix: node22 });
    const recorded = recordedEngines(yarn, worktree);
    expect(recorded.plan.binDirs).toContain(join(node22, 'bin'));
    const line = describeSetup({ steps: [{ ecosystem: 'yarn', command: yarn.command, source: 'cache', key: 'k', durationMs: 300, note: recorded.note }], copied: [], durationMs: 300, artifactId: '' });
    expect(line).toBe('yarn from cache 0.3 s (engines: node >=22 asked (string-width@9.0.0), 22.14.0 (nvm) used)');
  });
});
