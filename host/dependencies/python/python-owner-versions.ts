import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { EcosystemPlan } from '../ecosystem-plan';

/** The packaging tools every venv has: their versions say nothing about the project. */
const VENV_TOOLS = new Set(['pip', 'setuptools', 'wheel', 'distribute']);

/**
 * The versions installed from an index in the owner's virtualenv (`.venv` or `venv` of their
 * checkout), as pip constraints (`attrs==24.2.0`), one a line; empty when there is none. What was
 * installed from a folder, a URL or a VCS (the project itself, editable) names no version of the index.
 */
export function ownerVenvConstraints(ownerDir: string): string {
  for (const venv of ['.venv', 'venv'].map((name) => join(ownerDir, name))) {
    if (!existsSync(join(venv, 'pyvenv.cfg'))) continue;
    const lines: string[] = [];
    for (const lib of existsSync(join(venv, 'lib')) ? readdirSync(join(venv, 'lib')) : []) {
      const site = join(venv, 'lib', lib, 'site-packages');
      for (const name of existsSync(site) ? readdirSync(site) : []) {
        const match = /^(.+)-([^-]+)\.dist-info$/.exec(name);
        if (!match || VENV_TOOLS.has(match[1].toLowerCase()) || existsSync(join(site, name, 'direct_url.json'))) continue;
        lines.push(`${match[1]}==${match[2]}`);
      }
    }
    return lines.sort().join('\n');
  }
  return '';
}

/**
 * `plan` with the owner's venv versions as constraints of an unlocked Python install
 * (docs/real-repositories.md#python-projects): without a lockfile the versions the owner's tests
 * pass with are the best record there is. A lockfile's plan (uv, poetry, pdm) is left as it is:
 * the lockfile is the truth. Not part of the cache key: the first install of a key is every later
 * task's, whatever the owner's venv holds by then.
 */
export function withOwnerVersions(plan: EcosystemPlan, ownerDir: string | undefined): EcosystemPlan {
  if (!ownerDir || plan.ecosystem !== 'python' || !plan.command.endsWith('"$DEX_PYTHON_SETUP" pip')) return plan;
  const constraints = ownerVenvConstraints(ownerDir);
  return constraints ? { ...plan, setupEnv: { ...plan.setupEnv, DEX_PYTHON_CONSTRAINTS: constraints } } : plan;
}
