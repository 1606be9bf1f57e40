import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SetupResult } from '../../../core/run/setup-types';
import { commitProject, git, lockFromRegistry } from '../../support/projects/real-projects';

const FIXTURE = join(__dirname, '..', '..', 'fixtures', 'setup-worktree-worker.ts');

/**
 * Run by npm ci's postinstall inside the sandbox, where the download caches (npm_config_cache's
 * folder) are the one host folder both workers share: counts its runs there and holds until the
 * test writes `go`, so the other worker surely meets the lock. Outside a test's gate it does nothing.
 */
const GATE = `const fs = require('fs');
const path = require('path');
const gate = path.join(process.env.npm_config_cache || '/nowhere', '..', 'gate');
if (fs.existsSync(gate)) {
  fs.appendFileSync(path.join(gate, 'installs'), 'run\\n');
  let looks = 0;
  const wait = setInterval(() => { if (fs.existsSync(path.join(gate, 'go')) || ++looks > 1500) clearInterval(wait); }, 20);
}
`;

const gates: string[] = [];
afterEach(() => {
  for (const gate of gates.splice(0)) if (existsSync(gate)) writeFileSync(join(gate, 'go'), '');
});

describe('setupWorktree on two worker hosts sharing one DEX_DEPS_CACHE', () => {
  it('sets up two worktrees of one npm project at once with one install from the registry', { timeout: 60_000 }, async () => {
    const repo = commitProject(
      'shared-cache',
      {
        'package.json': `${JSON.stringify({ name: 'shared-cache', version: '1.0.0', private: true, scripts: { postinstall: 'node gate.js' }, dependencies: { ms: '2.1.3' } }, null, 2)}\n`,
        '.gitignore': 'node_modules/\n',
        'gate.js': GATE,
      },
      lockFromRegistry,
    );
    const root = mkdtempSync(join(tmpdir(), 'dex-shared-cache-'));
    const cache = join(root, 'deps');
    const gate = join(cache, '.downloads', 'gate');
    mkdirSync(gate, { recursive: true });
    gates.push(gate);
    const installs = () => (existsSync(join(gate, 'installs')) ? readFileSync(join(gate, 'installs'), 'utf8').split('\n').filter(Boolean).length : 0);

    const worker = async (name: string) => {
      const worktree = join(root, `wt-${name}`);
      git(repo, 'worktree', 'add', '-q', '--detach', worktree);
      const { DEX_STORE: _, ...env } = process.env;
      const args = ['--import', 'tsx', FIXTURE, worktree, repo, join(root, `waiting-${name}`)];
      const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: 50_000, env: { ...env, DEX_HOME: join(root, `home-${name}`), DEX_DEPS_CACHE: cache } });
      return { worktree, result: JSON.parse(stdout) as SetupResult & { error?: string } };
    };
    const both = Promise.all([worker('a'), worker('b')]);
    // npm ci runs in one worker and the other's heartbeat says it waits for it: only then may the install end.
    const waiting = () => readdirSync(root).find((name) => name.startsWith('waiting-'));
    await vi.waitFor(() => expect(installs() === 1 && waiting() !== undefined).toBe(true), { timeout: 40_000, interval: 50 });
    expect(readFileSync(join(root, waiting()!), 'utf8')).toMatch(/^waiting for another worker's install of npm \(\w+\), held by .+ pid \d+$/);
    writeFileSync(join(gate, 'go'), '');
    const done = await both;

    expect(installs()).toBe(1);
    expect(done.map(({ result }) => result.error ?? result.steps.map((step) => step.source).join()).sort()).toEqual(['cache', 'installed']);
    expect(readdirSync(cache).filter((name) => !name.startsWith('.'))).toHaveLength(1);
    for (const { worktree } of done) expect(readFileSync(join(worktree, 'node_modules/ms/package.json'), 'utf8')).toContain('"version": "2.1.3"');
    // Two homes: each host keeps its own store.
    expect(['home-a', 'home-b'].every((home) => existsSync(join(root, home)))).toBe(true);
  });
});
