import { join } from 'node:path';
import { SANDBOX_PATH } from '../sandbox/sandbox-env';
import { isSystemPath } from '../sandbox/bwrap-args';
import { goPlan } from './go-plan';
import { gradlePlan } from './jvm/gradle-plan';
import { jdkLinkedFolders } from './jvm/java-home';
import { mavenPlan } from './jvm/maven-plan';
import { nativePlan } from './native/native-plan';
import { nodePlan } from './node/node-plan';
import { pythonPlan } from './python/python-plan';
import { rustPlan } from './rust-plan';
import type { EcosystemPlan, HostToolchains } from './ecosystem-plan';

/** The toolchain each ecosystem's commands run (host-toolchains.ts finds where the owner has it). */
const TOOLCHAIN_OF: Record<string, keyof HostToolchains> = {
  python: 'pythonPrefix',
  npm: 'nodePrefix',
  pnpm: 'nodePrefix',
  yarn: 'nodePrefix',
  go: 'goRoot',
  rust: 'rustSysroot',
  maven: 'javaHome',
  gradle: 'javaHome',
};

/** The toolchains `ecosystem`'s commands need: its own, or for the config's commands every one found. */
const toolchainsFor = (ecosystem: string, toolchains: HostToolchains): string[] =>
  (ecosystem in TOOLCHAIN_OF ? [toolchains[TOOLCHAIN_OF[ecosystem]]] : Object.values(toolchains)).filter((p): p is string => !!p);

/**
 * `plan` with the owner's toolchains for it (docs/real-repositories.md#toolchains): each one's
 * `bin` on PATH after the worktree's own folders (a venv's python before pyenv's), unless the
 * sandbox's PATH has it already, and its folder mounted read-only unless it is a system folder.
 */
export function withToolchains(plan: EcosystemPlan, toolchains: HostToolchains): EcosystemPlan {
  const folders = toolchainsFor(plan.ecosystem, toolchains);
  const bins = folders.map((folder) => join(folder, 'bin')).filter((bin) => !SANDBOX_PATH.split(':').includes(bin));
  const mounts = folders.filter((folder) => !isSystemPath(folder));
  // A JDK's configuration may live outside it (Debian's in /etc/java-17-openjdk): mounted too.
  if (toolchains.javaHome && folders.includes(toolchains.javaHome)) mounts.push(...jdkLinkedFolders(toolchains.javaHome));
  return { ...plan, binDirs: [...new Set([...plan.binDirs, ...bins])], toolchainPaths: [...new Set([...plan.toolchainPaths, ...mounts])] };
}

/**
 * The ecosystems the repository at `dir` uses, from its lockfiles and manifests: one Node
 * plan (pnpm, yarn or npm, by lockfile), one Python plan (uv, poetry, requirements files or
 * pyproject.toml), Go (go.mod), Rust (Cargo.toml), C/C++ (CMake, meson or `configure`), Maven
 * (pom.xml) and Gradle (build.gradle), each with the owner's toolchain for it.
 * Empty for a repository without dependencies.
 */
export function detectEcosystems(dir: string, toolchains: HostToolchains = {}): EcosystemPlan[] {
  return [nodePlan(dir), pythonPlan(dir), goPlan(dir), rustPlan(dir), nativePlan(dir), mavenPlan(dir), gradlePlan(dir)]
    .filter((plan): plan is EcosystemPlan => plan !== undefined)
    .map((plan) => withToolchains(plan, toolchains));
}
