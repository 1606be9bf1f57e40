import { join } from 'node:path';
import { readText, type HostToolchains } from '../ecosystem-plan';
import { nodeVersion, satisfies } from './node-version-range';
import { nodeSatisfying, nodeVersionAt, ownerNodes, type OwnerNode } from './owner-nodes';

/** The ecosystems whose commands run Node. */
export const NODE_ECOSYSTEMS = ['npm', 'pnpm', 'yarn'];

/** A Node version range the project asks for, and the file that asks it. */
interface Asked {
  range: string;
  by: string;
}

/**
 * The Node the project itself asks for: package.json's `engines.node`, and the version `.nvmrc` or
 * `.node-version` names (`22`, `v22.14.0`: that version or a later one of its major; `lts/*` and
 * other names are left out).
 */
export function askedNode(dir: string): Asked[] {
  const asked: Asked[] = [];
  try {
    const range = (JSON.parse(readText(join(dir, 'package.json')) ?? '{}') as { engines?: { node?: unknown } }).engines?.node;
    if (typeof range === 'string' && range.trim()) asked.push({ range: range.trim(), by: 'package.json' });
  } catch {
    // A package.json npm cannot read: its install says what is wrong.
  }
  for (const file of ['.nvmrc', '.node-version']) {
    const version = readText(join(dir, file))?.trim().split(/\s/)[0];
    if (version && /^v?\d+(\.\d+){0,2}$/.test(version)) asked.push({ range: `^${version.replace(/^v/, '')}`, by: file });
  }
  return asked;
}

/** `engines: node >=22 asked (package.json), 22.14.0 used (nvm)`: what the setup line says of a Node chosen for the project. */
export const engineNote = (range: string, by: string, used: string): string => `engines: node ${range} asked${by ? ` (${by})` : ''}, ${used} used`;

/**
 * The owner's toolchains with the Node the project asks for (docs/real-repositories.md#node-engines):
 * when the Node setup would run does not satisfy what package.json's `engines` or `.nvmrc`/`.node-version`
 * ask, the newest Node of the owner's (nvm, fnm, volta, asdf, n) that does, and the setup line's note.
 * Unchanged when the Node satisfies it, when nothing is asked, or when the owner has none that does.
 */
export function projectNode(dir: string, toolchains: HostToolchains, nodes: () => OwnerNode[] = ownerNodes): { toolchains: HostToolchains; note?: string } {
  const asked = askedNode(dir);
  const current = nodeVersion(nodeVersionAt(toolchains.nodePrefix));
  const unmet = asked.filter(({ range }) => current && !satisfies(current, range));
  if (!unmet.length) return { toolchains };
  const chosen = nodeSatisfying(nodes(), asked.map((a) => a.range));
  if (!chosen) return { toolchains };
  const note = engineNote(unmet.map((a) => a.range).join(' and '), unmet.map((a) => a.by).join(', '), `${chosen.version} (${chosen.manager})`);
  return { toolchains: { ...toolchains, nodePrefix: chosen.prefix }, note };
}
