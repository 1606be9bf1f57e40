// dex-git itself: its safety settings, its environment allowlist, and what git hands the programs it starts.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dexGit, dexGitConfig, dexGitEnv, dexGitSync, emptyHooksDir } from '../../../host/git/dex-git';
import { plainGit } from '../../support/env/plain-git';


describe('dex-git', () => {
  it('sets every safety setting, with hooks looked up in an empty folder of its own', () => {
    const config = dexGitConfig();
    expect(config).toEqual([
      `core.hooksPath=${emptyHooksDir()}`,
      'core.fsmonitor=false',
      'submodule.recurse=false',
      'diff.ignoreSubmodules=all',
      'status.submoduleSummary=false',
      'core.untrackedCache=false',
      'commit.gpgsign=false',
      'tag.gpgsign=false',
      'protocol.allow=never',
    ]);
    expect(readdirSync(emptyHooksDir())).toEqual([]);
  });

  it('builds the environment from an allowlist: no API key, no GIT_DIR', () => {
    const env = dexGitEnv({
      PATH: '/usr/bin',
      HOME: '/home/me',
      LANG: 'C.UTF-8',
      ANTHROPIC_API_KEY: 'sk-secret',
      ANTHROPIC_BASE_URL: 'http://x',
      GIT_DIR: '/elsewhere/.git',
      GIT_WORK_TREE: '/elsewhere',
      GIT_CONFIG_PARAMETERS: "'core.hookspath'='/evil'",
      EDITOR: 'evil',
      AWS_SECRET_ACCESS_KEY: 'x',
    });
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/me', LANG: 'C.UTF-8', GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' });
  });

  it("hands programs git starts neither the worker's secrets nor its GIT_DIR, but its own settings", async () => {
    // git runs `git envdump` as the program git-envdump found on PATH, with the environment it gives its children.
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-git-env-')));
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'git-envdump'), '#!/bin/sh\nenv\n');
    chmodSync(join(bin, 'git-envdump'), 0o755);
    plainGit(dir, 'init', '-q', 'repo');
    const saved = { ...process.env };
    Object.assign(process.env, {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      ANTHROPIC_API_KEY: 'sk-secret',
      GIT_DIR: join(dir, 'nowhere'),
      GIT_WORK_TREE: join(dir, 'nowhere'),
    });
    try {
      for (const dumped of [dexGitSync(join(dir, 'repo'), ['envdump']), await dexGit(join(dir, 'repo')).raw(['envdump'])]) {
        expect(dumped).toContain('GIT_CONFIG_NOSYSTEM=1');
        expect(dumped).not.toContain('sk-secret');
        expect(dumped).not.toContain('ANTHROPIC');
        expect(dumped).not.toContain('nowhere');
        // The -c settings reach every git a git starts (submodules, nested repositories) this way.
        const parameters = /^GIT_CONFIG_PARAMETERS=(.*)$/m.exec(dumped)?.[1] ?? '';
        expect(parameters).toContain("'core.fsmonitor'='false'");
        // git 2.39 keeps the key's letter case here, later ones lower it.
        expect(parameters.toLowerCase()).toContain(`'core.hookspath'='${emptyHooksDir().toLowerCase()}'`);
      }
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
