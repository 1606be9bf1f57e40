/**
 * Rewinding a task (`dex retry ID --from PHASE`, docs/interfaces.md#the-dex-command): where a new run
 * starts when it takes up an earlier run at one of its phases. Pure.
 */
import { ARTIFACT_VARIABLES, CHANGING_PHASES } from './phases';
import { phaseArtifactId } from '../run/ids';

/** What a rewound run starts from, read off the earlier run's phase records. */
export interface RewindPoint {
  /** The commit the new branch starts at: the checkpoint after the last phase before `from`, else the earlier run's base. */
  sha: string;
  /** The phases before `from`, taken as done. */
  completedPhases: string[];
  /** The artifacts those phases left (by prompt variable), reused by id. */
  artifacts: Record<string, string>;
}

/** One phase attempt of the earlier run, as its record has it. */
interface PhaseAttemptRecord {
  phase: string;
  state: string;
  commitSha: string | null;
}

/**
 * Where a run that takes up `fromWorkflowId` at phase `from` starts. Every phase before `from`
 * must have been verified in the earlier run; throws an Error naming the first that was not.
 */
export function rewindPoint(args: { fromWorkflowId: string; phases: string[]; from: string; baseSha: string; records: PhaseAttemptRecord[] }): RewindPoint {
  const at = args.phases.indexOf(args.from);
  if (at === -1) throw new Error(`the run has no phase "${args.from}"; its phases: ${args.phases.join(', ')}`);
  const before = args.phases.slice(0, at);
  let sha = args.baseSha;
  const artifacts: Record<string, string> = {};
  for (const phase of before) {
    const verified = args.records.filter((r) => r.phase === phase && r.state === 'verified').at(-1);
    if (!verified) throw new Error(`phase "${phase}" of ${args.fromWorkflowId} never passed: retry from "${phase}" instead`);
    if (CHANGING_PHASES.has(phase) && verified.commitSha) sha = verified.commitSha;
    if (ARTIFACT_VARIABLES[phase]) artifacts[ARTIFACT_VARIABLES[phase]] = phaseArtifactId(args.fromWorkflowId, phase);
  }
  return { sha, completedPhases: before, artifacts };
}
