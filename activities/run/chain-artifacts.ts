/**
 * The store artifacts a chain of runs keeps when it continues as new (docs/layers.md#continue-as-new,
 * docs/sheets.md#continue-as-new): JSON, kept once under an id built from the chain's key.
 */
import type { DexStore } from '../../store/dex-store';

/** Reads a chain's artifacts of `store` and keeps new ones; `chain` names the chain in errors (`layer chain`). */
export function chainArtifacts(store: DexStore, chain: string) {
  return {
    async read<T>(id: string): Promise<T> {
      const artifact = await store.getArtifact(id);
      if (!artifact) throw new Error(`${chain}: no artifact ${id} in the store`);
      return JSON.parse(artifact.content) as T;
    },
    async keep(id: string, kind: string, value: unknown): Promise<void> {
      await store.putArtifact(id, kind, JSON.stringify(value));
    },
  };
}
