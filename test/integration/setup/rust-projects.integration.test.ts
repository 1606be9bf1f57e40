import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TaskResult } from '../../../core/task/task-types';
import { completionTurn, toolTurn } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { fileAt } from '../../support/env/dev-server-env';
import type { RealProject } from '../../support/projects/real-projects';
import { lockMissingRustLibrary } from '../../support/projects/real-projects-rust';

const FIX = { path: 'src/lib.rs', old_string: '.len() + 1', new_string: '.len()' };
const fixTurns = (task: string) => [toolTurn(task, ['edit_file', FIX]), completionTurn(task, { status: 'complete', summary: 'fixed src/lib.rs' })];

const dex = useDexEnvironment({ server: 'dev', cassette: [...fixTurns('R-rust'), ...fixTurns('R-rust-again')], queue: 'dex-it-rust' });

/** The paths the commit `sha` of `repo` holds. */
const filesAt = (repo: string, sha: string) => execFileSync('git', ['ls-tree', '-r', '--name-only', sha], { cwd: repo, encoding: 'utf8' }).split('\n').filter(Boolean);

describe('Rust as people have it: a library without Cargo.lock, Rust installed by rustup in the home', () => {
  let crate: RealProject;
  beforeAll(() => {
    crate = lockMissingRustLibrary();
  });

  // The worker's home holds rustup's ~/.cargo (and there a registry token, credentials.toml) and ~/.rustup.
  const cargoHome = `${homedir()}/.cargo`;
  const verify = [
    'cargo test -q',
    // Only the toolchain's own folder is mounted: nothing of ~/.cargo, so no credentials.toml, and not rustup's settings.
    `test ! -e ${cargoHome}/credentials.toml && test ! -e ${cargoHome} && test ! -e ${homedir()}/.rustup/settings.toml`,
  ];

  it('setup resolves a lockfile and fetches from crates.io, `cargo test` runs offline in the sandbox, the fix lands without Cargo.lock or target/', async () => {
    const { handle } = await dex.startTask('R-rust', { repoPath: crate.repo, verify });
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    expect(result.setup).toMatch(/^rust installed \d+\.\d s$/);
    expect(fileAt(crate.repo, result.commit!, 'src/lib.rs')).toContain('.len()\n');
    // The lockfile setup resolved and the build's output are not the task's work, though the project ignores neither.
    const files = filesAt(crate.repo, result.commit!);
    expect(files).toEqual(['Cargo.toml', 'src/lib.rs']);
  });

  it('a second task on the same Cargo.toml takes the lockfile and the crates from the cache', async () => {
    const { handle } = await dex.startTask('R-rust-again', { repoPath: crate.repo, verify });
    const result = (await handle.result()) as TaskResult;
    expect(result.state, result.error).toBe('completed');
    expect(result.verifyPassed).toBe(true);
    expect(result.setup).toMatch(/^rust from cache \d+\.\d s$/);
    expect(filesAt(crate.repo, result.commit!)).not.toContain('Cargo.lock');
  });
});
