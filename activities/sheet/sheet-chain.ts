/**
 * The activities of a sheet that continues as new (docs/sheets.md#continue-as-new): each run of
 * the chain stores what ended in it and hands on only the artifact's id; the next run reads every
 * earlier run's back, so no run's input holds the values.
 */
import type { SheetChunk, StatementOutcome } from '../../core/sheet/sheet-types';
import type { ActivityDeps } from '../deps';
import { chainArtifacts } from '../run/chain-artifacts';

/** The artifact kind of what one run of a sheet's chain hands on. */
const CHUNK_KIND = 'sheet-chain-chunk';

/** Builds the chain activities over the host's store. */
export const createSheetChainActivities = (deps: ActivityDeps) => {
  const { read, keep } = chainArtifacts(deps.store, 'sheet chain');
  return {
    /** Stores what one run of the chain hands on under `id` (once: a retry stores the same). */
    async keepSheetChunk(input: { id: string; chunk: SheetChunk }): Promise<void> {
      await keep(input.id, CHUNK_KIND, input.chunk);
    },

    /** What the earlier runs of the chain did, from their artifacts (`chunks`, in order) as one. */
    async sheetChainState(input: { chunks: string[] }): Promise<SheetChunk> {
      return mergeChunks(await Promise.all(input.chunks.map((id) => read<SheetChunk>(id))));
    },
  };
};

/**
 * The chunks of a chain's runs as one: each statement as the latest run that touched it left it
 * (a statement completed in one run may be undone in a later one), the completed lists in order.
 */
function mergeChunks(chunks: SheetChunk[]): SheetChunk {
  const outcomes = new Map<number, StatementOutcome>();
  for (const chunk of chunks) for (const outcome of chunk.outcomes) outcomes.set(outcome.index, outcome);
  return {
    outcomes: [...outcomes.values()].sort((a, b) => a.index - b.index),
    completed: chunks.flatMap((c) => c.completed),
  };
}
