/**
 * Dependency depth and phases for any DAG of named items (roadmap tasks, sheet statements).
 * Pure: shared by the client (to refuse bad input before anything starts) and workflows.
 */
import { InvalidInput } from '../run/invalid-input';

/** An item that needs other items (by id) to finish first. */
interface DependencyNode {
  id: string;
  needs: readonly string[];
}

/** Why a set of items cannot be ordered. */
type DependencyProblem =
  | { kind: 'duplicate'; id: string }
  | { kind: 'unknown'; id: string; needs: string }
  | { kind: 'cycle'; ids: string[] };

/** Thrown by `dependencyDepths` when the items cannot be ordered; `problem` says why. */
export class DependencyError extends InvalidInput {
  constructor(readonly problem: DependencyProblem) {
    super(describeProblem(problem));
    this.name = 'DependencyError';
  }
}

function describeProblem(p: DependencyProblem): string {
  switch (p.kind) {
    case 'duplicate':
      return `duplicate id ${p.id}`;
    case 'unknown':
      return `${p.id} depends on unknown id ${p.needs}`;
    case 'cycle':
      return `dependency cycle: ${[...p.ids, p.ids[0]].join(' -> ')}`;
  }
}

/**
 * The depth of each item: 0 with no dependencies, else 1 + the deepest item it needs.
 * Throws DependencyError on a duplicate id, an unknown dependency or a cycle (naming its ids in order).
 */
export function dependencyDepths(nodes: readonly DependencyNode[]): Map<string, number> {
  const byId = new Map<string, DependencyNode>();
  for (const node of nodes) {
    if (byId.has(node.id)) throw new DependencyError({ kind: 'duplicate', id: node.id });
    byId.set(node.id, node);
  }
  for (const node of nodes) {
    for (const need of node.needs) {
      if (!byId.has(need)) throw new DependencyError({ kind: 'unknown', id: node.id, needs: need });
    }
  }

  const depth = new Map<string, number>();
  const onPath: string[] = [];
  const visit = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    const loopAt = onPath.indexOf(id);
    if (loopAt !== -1) throw new DependencyError({ kind: 'cycle', ids: onPath.slice(loopAt) });
    onPath.push(id);
    const d = byId.get(id)!.needs.reduce((deepest, need) => Math.max(deepest, visit(need) + 1), 0);
    onPath.pop();
    depth.set(id, d);
    return d;
  };
  for (const node of nodes) visit(node.id);
  return depth;
}

/** The items grouped by depth: phase n holds the ids at depth n, in their original order. */
export function dependencyPhases(nodes: readonly DependencyNode[]): string[][] {
  const depths = dependencyDepths(nodes);
  const phases: string[][] = [];
  for (const node of nodes) (phases[depths.get(node.id)!] ??= []).push(node.id);
  return phases;
}

/** The ids that depend on `id`, directly or through others, in their original order. */
export function dependentsOf(nodes: readonly DependencyNode[], id: string): string[] {
  const blocked = new Set<string>([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const node of nodes) {
      if (!blocked.has(node.id) && node.needs.some((n) => blocked.has(n))) {
        blocked.add(node.id);
        grew = true;
      }
    }
  }
  return nodes.filter((n) => n.id !== id && blocked.has(n.id)).map((n) => n.id);
}
