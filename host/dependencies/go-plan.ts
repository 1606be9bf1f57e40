import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { present, type EcosystemPlan } from './ecosystem-plan';

/**
 * The Go plan of `dir`, for any module (`go.mod`): one without dependencies (no `go.sum`) still
 * needs the toolchain on PATH and a build cache it may write.
 */
export function goPlan(dir: string): EcosystemPlan | undefined {
  if (!existsSync(join(dir, 'go.mod'))) return undefined;
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
    binDirs: [],
    toolchainPaths: [],
  };
}
