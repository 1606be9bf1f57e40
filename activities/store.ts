import type { ActivityDeps } from './deps';
import { heartbeatingWhileRunning } from './local-heartbeat';
import type { PhaseRecord } from '../store/sqlite-store';

/** Activities that write the run's records to the store. */
export const createStoreActivities = (deps: ActivityDeps) => heartbeatingWhileRunning({
  /** Stores a phase's outcome and totals (once per key). */
  async recordPhase(record: PhaseRecord): Promise<void> {
    deps.store.recordPhase(record);
  },

  /**
   * Keeps the text of the assistant message at `seq` as artifact `artifactId` (a spec, a
   * design, review findings) for later phases' prompts; returns its length.
   */
  async keepPhaseArtifact(input: { transcriptId: string; seq: number; artifactId: string; kind: string }): Promise<number> {
    const message = deps.store.getMessage(input.transcriptId, input.seq);
    const blocks = Array.isArray(message?.content) ? (message.content as { type: string; text?: string }[]) : [];
    const text = blocks
      .filter((b) => b.type === 'text' && b.text)
      .map((b) => b.text)
      .join('\n');
    deps.store.putArtifact(input.artifactId, input.kind, text);
    return text.length;
  },
});
