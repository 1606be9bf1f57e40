import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });

/** A repository at `dir` with a one-task roadmap, `config` as its dex.config.yaml and `url` as its origin (not fetched). */
export function roadmapRepoWithOrigin(dir: string, config: string, url: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'ROADMAP.md'), '- [ ] A: one\n');
  writeFileSync(join(dir, 'dex.config.yaml'), config);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'start');
  git(dir, 'remote', 'add', 'origin', url);
  return dir;
}

/** A bare repository holding `repo`'s main, added to `repo` as `origin`; returns its path. */
export function bareRemote(repo: string): string {
  const remote = join(mkdtempSync(join(tmpdir(), 'dex-remote-')), 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  git(repo, 'remote', 'add', 'origin', remote);
  git(repo, 'push', '-q', 'origin', 'main');
  return remote;
}

/**
 * Installs a pre-receive hook in `remote` that, at the first push after now, commits `path` with
 * `content` (and a test of it) from another clone, pushes that, and refuses the push it was called
 * for: deterministic "another pusher moved the branch between your fetch and your push". Returns
 * the other commit's subject.
 */
export function movedOnce(remote: string, path: string, content: string): string {
  const clone = join(mkdtempSync(join(tmpdir(), 'dex-other-')), 'clone');
  execFileSync('git', ['clone', '-q', remote, clone]);
  const subject = `other pusher: add ${path}`;
  const test = "const test = require('node:test');\nconst assert = require('node:assert');\ntest('other', () => assert.strictEqual(require('../src/other').other(), 3));\n";
  const hook = `#!/bin/sh
[ -e "$PWD/moved-once" ] && exit 0
touch "$PWD/moved-once"
unset GIT_DIR GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_PUSH_OPTION_COUNT
cd '${clone}' || exit 1
mkdir -p test && printf '%s' '${content.replace(/'/g, "'\\''")}' > '${path}' && printf '%s' "$(cat <<'TEST'
${test}TEST
)" > test/other.test.js
git add -A && git -c user.name=o -c user.email=o@o commit -q -m '${subject}' && git push -q origin HEAD:main >&2
echo 'refused: another pusher got there first' >&2
exit 1
`;
  const at = join(remote, 'hooks', 'pre-receive');
  writeFileSync(at, hook);
  chmodSync(at, 0o755);
  return subject;
}
