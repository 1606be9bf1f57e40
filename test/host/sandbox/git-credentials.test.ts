/**
 * The agent sees no credential of the owner's git set-up (docs/security.md#git-metadata): a
 * repository whose remote URL, credential helper, extra header, url rewrite, FETCH_HEAD and
 * reflog hold tokens, read from inside the sandbox every way the escape corpus tried.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentCommand } from '../../../host/sandbox/run-agent-command';
import { sanitizedConfig } from '../../../host/sandbox/git-view';
import { DEFAULT_SANDBOX } from '../../../core/safety/sandbox-policy';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

const TOKENS = {
  url: 'ghp_0123456789abcdefghijABCDEFGHIJ012345',
  helper: 'HELPER-PASSWORD-7f3a9c',
  header: 'dG9rZW4tZnJvbS1leHRyYWhlYWRlcg==',
  rewrite: 'glpat-rewrite-token-5521',
  includeFile: 'INCLUDED-SECRET-0042',
};

let root: string;
let repo: string;
let worktree: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'dex-git-creds-'));
  repo = join(root, 'repo');
  worktree = join(root, 'worktrees', 'wt');
  mkdirSync(repo, { recursive: true });
  git(root, 'init', '-q', '-b', 'main', repo);
  writeFileSync(join(repo, 'a.txt'), 'in the repo\n');
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-q', '-m', 'init');
  const remote = `https://x-access-token:${TOKENS.url}@git.example.com/acme/app.git`;
  git(repo, 'remote', 'add', 'origin', remote);
  git(repo, 'config', 'credential.helper', `!f() { echo username=x; echo password=${TOKENS.helper}; }; f`);
  git(repo, 'config', 'http.https://git.example.com/.extraheader', `AUTHORIZATION: basic ${TOKENS.header}`);
  git(repo, 'config', `url.https://oauth2:${TOKENS.rewrite}@gitlab.example.com/.insteadOf`, 'https://gitlab.example.com/');
  writeFileSync(join(root, 'included.gitconfig'), `[user]\n\tname = ${TOKENS.includeFile}\n`);
  git(repo, 'config', 'include.path', join(root, 'included.gitconfig'));
  const common = join(repo, '.git');
  writeFileSync(join(common, 'FETCH_HEAD'), `0000000000000000000000000000000000000000\t\tbranch 'main' of ${remote}\n`);
  appendFileSync(join(common, 'logs', 'HEAD'), `0000000000000000000000000000000000000000 1111111111111111111111111111111111111111 t <t@x> 0 +0000\tclone: from ${remote}\n`);
  writeFileSync(join(common, 'my-credentials'), `https://x:${TOKENS.helper}@git.example.com\n`);
  git(repo, 'worktree', 'add', '-q', '-b', 'task', worktree);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the sandbox's view of git metadata", () => {
  it('shows remotes without their user and password, and no helper, header, rewrite, include, FETCH_HEAD, reflog or stray file', async () => {
    const common = '$(git rev-parse --git-common-dir)';
    const commands = [
      'git remote -v',
      'git remote get-url origin',
      'git config --list',
      `cat ${common}/config`,
      `cat ${common}/FETCH_HEAD`,
      `cat ${common}/logs/HEAD`,
      `cat ${common}/my-credentials`,
      `ls -a ${common}`,
      "printf 'protocol=https\\nhost=git.example.com\\n\\n' | git credential fill",
      'env',
    ];
    const result = await runAgentCommand(commands.map((c) => `${c} 2>&1`).join('; '), worktree, DEFAULT_SANDBOX, { timeoutMs: 20_000, outputLimitBytes: 256 * 1024 });
    for (const token of Object.values(TOKENS)) expect(result.output).not.toContain(token);
    expect(result.output).toContain('origin\thttps://git.example.com/acme/app.git (fetch)');
    expect(result.output).not.toMatch(/credential\.helper|extraheader|insteadof|include\.path/i);
  });

  it('keeps git working: status, log, diff and show read the repository', async () => {
    writeFileSync(join(worktree, 'a.txt'), 'changed\n');
    const result = await runAgentCommand('git status --short; git log --oneline | wc -l; git diff --stat; git show --stat HEAD | head -1', worktree, DEFAULT_SANDBOX, {
      timeoutMs: 20_000,
      outputLimitBytes: 64 * 1024,
    });
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toMatch(/^ M a\.txt$/m);
    expect(result.output).toMatch(/^1$/m);
    expect(result.output).toMatch(/a\.txt \| 2/);
    git(worktree, 'checkout', '--', 'a.txt');
  });

  it('writes a config git reads back the same, less what authenticates', () => {
    const text = sanitizedConfig(join(repo, '.git', 'config'));
    const file = join(root, 'sanitized.config');
    writeFileSync(file, text);
    const listed = execFileSync('git', ['config', '--file', file, '--list'], { encoding: 'utf8' });
    expect(listed).toContain('remote.origin.url=https://git.example.com/acme/app.git');
    expect(listed).toContain('core.repositoryformatversion=0');
    for (const token of Object.values(TOKENS)) expect(listed).not.toContain(token);
  });
});
