import { goPlan } from './go-plan';
import { nodePlan } from './node-plan';
import { pythonPlan } from './python/python-plan';
import { rustPlan } from './rust-plan';
import type { EcosystemPlan, HostToolchains } from './ecosystem-plan';

/**
 * The ecosystems the repository at `dir` uses, from its lockfiles and manifests: one Node
 * plan (pnpm, yarn or npm, by lockfile), one Python plan (uv, poetry, requirements files or
 * pyproject.toml), Go and Rust. Empty for a repository without dependencies.
 */
export function detectEcosystems(dir: string, toolchains: HostToolchains = {}): EcosystemPlan[] {
  return [nodePlan(dir), pythonPlan(dir), goPlan(dir, toolchains.goRoot), rustPlan(dir, toolchains.cargoHome, toolchains.rustupHome)].filter(
    (plan): plan is EcosystemPlan => plan !== undefined,
  );
}
