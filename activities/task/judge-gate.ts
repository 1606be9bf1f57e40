/**
 * The `judgeGate` activity: a gate answered by a model (docs/roadmaps.md#ai-gates). The model
 * gets the task, its diff against the base and the last verify report, and must answer
 * through one tool with a fixed schema: approve, reject with findings, or ask a person.
 */
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import type { LlmSpec, TokenUsage } from '../../core/run/run-types';
import type { ActivityDeps } from '../deps';
import { dexGit } from '../../host/git/dex-git';
import { forcedToolCalls, type AnswerTool } from '../model/forced-tool-call';

/** The most characters of the diff and of the verify report the gate's model reads. */
const DIFF_CHARS = 24_000;
const REPORT_CHARS = 8_000;

/** The one tool the gate's model answers through; `tool_choice` forces it. */
const VERDICT_TOOL: AnswerTool = {
  name: 'gate_verdict',
  description: 'Your decision at this gate.',
  input_schema: {
    type: 'object',
    properties: {
      verdict: { type: 'string', enum: ['approve', 'reject', 'ask'], description: 'approve: the work may pass; reject: it must be redone (say why in findings); ask: a person must decide' },
      findings: { type: 'string', description: 'What you found: for reject, what to fix; for ask, what the person must decide' },
    },
    required: ['verdict', 'findings'],
  },
};

const SYSTEM = 'You review the work of a coding agent at a gate before it may pass. Judge the change against the task and the instructions. Answer only through the gate_verdict tool.';

/** Input of `judgeGate`. */
interface JudgeGateInput {
  /** The gate's transcript: the prompt at seq 0, the verdict at seq 1. */
  transcriptId: string;
  taskId: string;
  title: string;
  description: string;
  gate: string;
  worktreePath: string;
  baseSha: string;
  verifyArtifactId?: string;
  model: string;
  instructions?: string;
  llm: LlmSpec;
  cassetteScope: string;
}

/** The gate's model's answer and what it cost. */
interface GateVerdict {
  verdict: 'approve' | 'reject' | 'ask';
  findings: string;
  usage: TokenUsage;
  costUsd: number;
}

/** Builds the gate activity over the host's dependencies. */
export const createJudgeGateActivities = (deps: ActivityDeps) => {
  const forced = forcedToolCalls(deps);
  return {
    async judgeGate(input: JudgeGateInput): Promise<GateVerdict> {
      const answer = await forced({
        transcriptId: input.transcriptId,
        taskId: input.taskId,
        phase: input.gate,
        model: input.model,
        llm: input.llm,
        cassetteScope: input.cassetteScope,
        system: SYSTEM,
        tool: VERDICT_TOOL,
        prompt: () => gatePrompt(deps, input),
      });
      const { verdict, findings } = answer.input;
      if ((verdict !== 'approve' && verdict !== 'reject' && verdict !== 'ask') || typeof findings !== 'string') {
        throw nonRetryable(FAILURE.ModelBadResponse, "the gate's model answered gate_verdict without a verdict and findings");
      }
      return { verdict, findings: findings.trim(), usage: answer.usage, costUsd: answer.costUsd };
    },
  };
};

/** What the gate's model reads: the task, the instructions, the change and the last verify report. */
async function gatePrompt(deps: ActivityDeps, input: JudgeGateInput): Promise<string> {
  const git = dexGit(input.worktreePath);
  // New files count as changes: marked intent-to-add (the checkpoint adds everything anyway), git
  // diffs them like the rest, and a symlink shows as its target's name, never what it points at.
  await git.raw(['add', '--intent-to-add', '--all']);
  const diff = (await git.raw(['diff', '--no-ext-diff', '--no-textconv', input.baseSha])).trim() || '(no changes)';
  const report = input.verifyArtifactId ? (await deps.store.getArtifact(input.verifyArtifactId))?.content : undefined;
  return [
    `# Task ${input.taskId}: ${input.title}`,
    input.description.trim() || '(no description beyond the title)',
    `# Gate: ${input.gate}`,
    input.instructions ? `# What to check\n${input.instructions.trim()}` : '',
    `# The change against its base (${input.baseSha.slice(0, 10)})\n\`\`\`diff\n${cut(diff, DIFF_CHARS)}\n\`\`\``,
    report ? `# The last verify report\n${cut(report, REPORT_CHARS)}` : '# Verify\n(none ran)',
  ].filter(Boolean).join('\n\n');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}
