import { execFileSync } from 'node:child_process';

/** Plain git for setting the scene, before the traps are armed (and for the control runs after). */
export function plainGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test Person', '-c', 'user.email=test@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
