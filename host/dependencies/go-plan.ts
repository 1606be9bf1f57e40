import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { present, type EcosystemPlan } from './ecosystem-plan';

/** The Go plan of `dir`, for a module with dependencies (`go.sum`). */
export function goPlan(dir: string, goRoot: string | undefined): EcosystemPlan | undefined {
  if (!existsSync(join(dir, 'go.sum'))) return undefined;
  // Modules and build cache live in the worktree's .dex folder (go ignores folders starting with a dot); no network after setup.
  const env = { GOMODCACHE: '{worktree}/.dex/gomod', GOCACHE: '{worktree}/.dex/gocache', GOFLAGS: '-modcacherw', GOTOOLCHAIN: 'local' };
  return {
    ecosystem: 'go',
    command: 'go mod download',
    inputs: present(dir, ['go.mod', 'go.sum']),
    outputs: ['.dex/gomod'],
    scratch: ['.dex/gocache'],
    hosts: ['proxy.golang.org', 'sum.golang.org', 'storage.googleapis.com'],
    toolchain: ['go version'],
    setupEnv: env,
    commandEnv: { ...env, GOPROXY: 'off' },
    binDirs: goRoot ? [join(goRoot, 'bin')] : [],
    toolchainPaths: goRoot ? [goRoot] : [],
  };
}

