import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTaskWorktreeActivities } from '../../../activities/task/task-worktree';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { runActivity } from '../../support/env/mock-activity';
import { offlineDeps } from '../../support/projects/offline-deps';
import { git } from '../../support/projects/real-projects';

const show = (repo: string, ...args: string[]) => git(repo, ...args).toString().trim();

describe('a task worktree of a repository with submodules', () => {
  let dir: string;
  let app: string;
  let store: DexStore;
  let acts: ReturnType<typeof createTaskWorktreeActivities>;
  const prepare = (name: string) => runActivity(acts.prepareWorktree, [{ repoPath: app, branch: `dex/${name}`, worktreeName: name }]);

  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-submodules-')));
    // A library, and an app that has it as a submodule at its first commit; the library has moved on since.
    const lib = join(dir, 'lib');
    mkdirSync(lib);
    git(lib, 'init', '-q', '-b', 'main');
    writeFileSync(join(lib, 'lib.txt'), 'v1\n');
    git(lib, 'add', '-A');
    git(lib, 'commit', '-qm', 'v1');
    app = join(dir, 'app');
    mkdirSync(app);
    git(app, 'init', '-q', '-b', 'main');
    writeFileSync(join(app, 'app.txt'), 'app\n');
    git(app, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'vendor/lib');
    git(app, 'commit', '-qm', 'app');
    writeFileSync(join(lib, 'lib.txt'), 'v2\n');
    git(lib, 'commit', '-qam', 'v2');
    store = openSqliteDexStore(join(dir, 'home', 'dex.db'));
    acts = createTaskWorktreeActivities(offlineDeps(store, join(dir, 'home')));
  });
  afterEach(async () => {
    await store.close();
  });

  it('has them checked out at the recorded commit from the owner\'s copy, without reaching their remote', async () => {
    // The library's own repository is gone: only the owner's .git/modules can give it.
    renameSync(join(dir, 'lib'), join(dir, 'lib-moved'));
    const worktree = await prepare('T1');
    expect(readFileSync(join(worktree.path, 'vendor/lib/lib.txt'), 'utf8')).toBe('v1\n');
    expect(show(worktree.path, 'status', '--porcelain')).toBe('');
    // The owner's config still names the library's real remote.
    expect(show(app, 'config', 'submodule.vendor/lib.url')).toBe(join(dir, 'lib'));
    // A retry after a crash between `worktree add` and the submodules fills them; the agent's edits in one stay.
    writeFileSync(join(worktree.path, 'vendor/lib/lib.txt'), 'edited\n');
    git(worktree.path, 'submodule', 'deinit', '-q', '-f', 'vendor/lib');
    const again = await prepare('T1');
    expect(readFileSync(join(again.path, 'vendor/lib/lib.txt'), 'utf8')).toBe('v1\n');
    writeFileSync(join(again.path, 'vendor/lib/lib.txt'), 'edited\n');
    await prepare('T1');
    expect(readFileSync(join(again.path, 'vendor/lib/lib.txt'), 'utf8')).toBe('edited\n');
  });

  it('checkpoints commit the task\'s work beside a submodule, but still refuse a repository the agent made', async () => {
    const worktree = await prepare('T2');
    writeFileSync(join(worktree.path, 'app.txt'), 'changed\n');
    const first = await runActivity(acts.commitCheckpoint, [{ worktreePath: worktree.path, message: 'work', key: 'k1' }]);
    expect(first.created).toBe(true);
    expect(show(worktree.path, 'show', '--name-only', '--format=', first.sha)).toBe('app.txt');
    // A `.git` file the agent wrote that points anywhere else is a nested repository of its own.
    mkdirSync(join(worktree.path, 'evil'));
    writeFileSync(join(worktree.path, 'evil', '.git'), `gitdir: ${join(worktree.path, 'evil-git')}\n`);
    await expect(runActivity(acts.commitCheckpoint, [{ worktreePath: worktree.path, message: 'more', key: 'k2' }])).rejects.toThrow(/nested git repository at evil\/\.git/);
    // Even pointing into the repository's own git folder, a `.git` where the commit records no submodule is refused.
    const libGitDir = resolve(worktree.path, 'vendor/lib', readFileSync(join(worktree.path, 'vendor/lib/.git'), 'utf8').replace('gitdir:', '').trim());
    expect(existsSync(join(libGitDir, 'HEAD'))).toBe(true);
    writeFileSync(join(worktree.path, 'evil', '.git'), `gitdir: ${libGitDir}\n`);
    await expect(runActivity(acts.commitCheckpoint, [{ worktreePath: worktree.path, message: 'more', key: 'k3' }])).rejects.toThrow(/nested git repository at evil\/\.git/);
  });

  it('leaves a submodule the owner never checked out empty, as git does', async () => {
    git(app, 'submodule', 'deinit', '-q', '-f', 'vendor/lib');
    renameSync(join(app, '.git', 'modules'), join(dir, 'modules-away'));
    const worktree = await prepare('T3');
    expect(show(worktree.path, 'ls-files', 'vendor/lib')).toBe('vendor/lib');
    expect(() => readFileSync(join(worktree.path, 'vendor/lib/lib.txt'))).toThrow();
  });
});
