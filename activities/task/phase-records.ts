import type { ActivityDeps } from '../deps';
import { heartbeatingWhileRunning } from '../run/local-heartbeat';
import type { PhaseRecord } from '../../store/records';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { rewindPoint, type RewindPoint } from '../../core/task/rewind';

/** Activities that write the run's records to the store. */
export const createPhaseRecordActivities = (deps: ActivityDeps) => heartbeatingWhileRunning({
  /** Stores a phase's outcome and totals (once per key). */
  async recordPhase(record: PhaseRecord): Promise<void> {
    await deps.store.recordPhase(record);
  },

  /**
   * Where a run that takes up `fromWorkflowId` at phase `from` starts, from that run's phase
   * records on this host: the checkpoint before the phase, and the artifacts of the phases before.
   */
  async findRewindPoint(input: { fromWorkflowId: string; phases: string[]; from: string; baseSha: string }): Promise<RewindPoint> {
    try {
      return rewindPoint({ ...input, records: await deps.store.listPhases(input.fromWorkflowId) });
    } catch (err) {
      throw nonRetryable(FAILURE.RewindImpossible, (err as Error).message);
    }
  },

  /**
   * Keeps the text of the assistant message at `seq` as artifact `artifactId` (a spec, a
   * design, review findings) for later phases' prompts; returns its length.
   */
  async keepPhaseArtifact(input: { transcriptId: string; seq: number; artifactId: string; kind: string }): Promise<number> {
    const message = await deps.store.getMessage(input.transcriptId, input.seq);
    const blocks = Array.isArray(message?.content) ? (message.content as { type: string; text?: string }[]) : [];
    const text = blocks
      .filter((b) => b.type === 'text' && b.text)
      .map((b) => b.text)
      .join('\n');
    await deps.store.putArtifact(input.artifactId, input.kind, text);
    return text.length;
  },
});
