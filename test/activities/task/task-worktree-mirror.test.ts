import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskWorktreeActivities } from '../../../activities/task/task-worktree';
import { parseForgeRepository, type ForgeRepository } from '../../../core/fleet/repo-locator';
import { ensureMirror } from '../../../host/git/repo-mirror';
import type { DexStore } from '../../../store/dex-store';
import { openSqliteDexStore } from '../../../store/sqlite/sqlite-dex-store';
import { runActivity } from '../../support/env/mock-activity';
import { startFakeForge, type FakeForge } from '../../support/forge/fake-forge';
import { git } from '../../support/forge/fake-forge-git';
import { offlineDeps } from '../../support/projects/offline-deps';

// A task's worktree made from a worker's bare mirror of a forge repository (docs/fleet.md#worktrees-from-the-mirror):
// prepareWorktree takes the mirror as its repoPath unchanged, and a later fetch of the mirror
// leaves the task's branch and worktree as they are.
const TOKEN = 'mirror-worktree-token-0123456789';

describe('a task worktree from a repository mirror', () => {
  let forge: FakeForge;
  let dir: string;
  let store: DexStore;
  let repo: ForgeRepository;
  let reach: { dexHome: string; env: NodeJS.ProcessEnv; caFile: string };

  beforeAll(async () => {
    forge = await startFakeForge({ token: TOKEN, gitAuth: true });
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'dex-mirror-worktree-')));
    repo = parseForgeRepository(forge.remoteUrl, { tokenEnv: 'GITHUB_TOKEN' })!;
    reach = { dexHome: join(dir, 'home'), env: { ...process.env, GITHUB_TOKEN: TOKEN }, caFile: forge.caFile };
    store = openSqliteDexStore(join(dir, 'home', 'dex.db'));
  });
  afterAll(async () => {
    await store.close();
    await forge.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("prepares a worktree at the forge's head or at a given commit, checkpoints in it, and keeps it through the mirror's next fetch", async () => {
    const first = await forge.commit('main', { 'src.txt': 'one\n' });
    const { path: mirror } = await ensureMirror(repo, reach);
    const acts = createTaskWorktreeActivities(offlineDeps(store, reach.dexHome));

    const atHead = await runActivity(acts.prepareWorktree, [{ repoPath: mirror, branch: 'dex/task-demo-1', worktreeName: 'task-demo-1' }]);
    expect(atHead).toEqual({ path: join(reach.dexHome, 'worktrees', 'task-demo-1'), branch: 'dex/task-demo-1', baseSha: first });
    expect(readFileSync(join(atHead.path, 'src.txt'), 'utf8')).toBe('one\n');

    writeFileSync(join(atHead.path, 'src.txt'), 'changed by the task\n');
    const checkpoint = await runActivity(acts.commitCheckpoint, [{ worktreePath: atHead.path, message: 'implement', key: 'task-demo-1/implement' }]);
    expect(checkpoint.created).toBe(true);

    // The forge moves on, removes a branch and has a branch under dex/ of its own: the task's branch is untouched.
    const second = await forge.commit('main', { 'src.txt': 'two\n' });
    await forge.commit('dex/task-demo-1', { 'forge.txt': 'a pushed branch of the same name\n' });
    await ensureMirror(repo, reach);
    expect(await git(mirror, ['rev-parse', 'refs/heads/main'])).toBe(second);
    expect(await git(mirror, ['rev-parse', 'refs/heads/dex/task-demo-1'])).toBe(checkpoint.sha);
    expect(await git(atHead.path, ['status', '--porcelain'])).toBe('');

    const atCommit = await runActivity(acts.prepareWorktree, [
      { repoPath: mirror, branch: 'dex/task-demo-2', worktreeName: 'task-demo-2', start: { sha: first, baseSha: first } },
    ]);
    expect(atCommit.baseSha).toBe(first);
    expect(await git(atCommit.path, ['rev-parse', 'HEAD'])).toBe(first);

    await runActivity(acts.removeWorktree, [{ repoPath: mirror, worktreePath: atCommit.path }]);
    expect(existsSync(atCommit.path)).toBe(false);
  });
});
