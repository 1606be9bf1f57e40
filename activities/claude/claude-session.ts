/**
 * The `runClaudeSession` activity: a phase's work as a Claude Code session (docs/claude-code.md),
 * through the Claude Agent SDK, confined in bubblewrap, its model calls through dex's relay, its
 * messages kept in the phase's transcript as they come. A retried attempt resumes the session
 * from Claude Code's own session file, kept on this host.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { sessionStepSignal } from '../../core/run/definitions';
import { FAILURE, nonRetryable } from '../../core/run/failure-types';
import { fits, totalTokens, type Allowance } from '../../core/run/budget-reservation';
import type { LlmSpec, TokenUsage } from '../../core/run/run-types';
import { DEFAULT_SANDBOX, type SandboxPolicy } from '../../core/safety/sandbox-policy';
import { extractCompletion } from '../../core/task/completion';
import type { Completion } from '../../core/task/task-types';
import { startModelRelay, type RelaySource } from '../../host/claude-code/model-relay';
import { sandboxedClaude } from '../../host/claude-code/sandboxed-claude';
import { copyPersonSetup, personClaudeDir, personMcpServers } from '../../host/claude-code/person-setup';
import { claudeDirOf, sessionIdOf, sessionSaved } from '../../host/claude-code/session-files';
import { startEgressProxy } from '../../host/sandbox/egress-proxy';
import { assertSandboxAvailable } from '../../host/sandbox/sandbox-availability';
import { commandSetup } from '../../host/dependencies/setup-state';
import type { ActivityDeps } from '../deps';
import { CassetteFiles } from '../model/cassette-replay';
import { sessionAnswers } from './session-answers';
import { classifySessionError } from './session-errors';
import { SessionTranscript } from './session-transcript';
import { protectedWrite, type ProtectedWrite } from './tool-permission';
import type { ClaudeSetup } from '../../core/task/agent-engine';

/** Input of `runClaudeSession`: one stretch of a phase attempt's session, up to its next end. */
interface ClaudeSessionInput {
  transcriptId: string;
  /** Which stretch of the phase attempt's session this is (1, 2, …): what its result is kept under. */
  stretch: number;
  worktreePath: string;
  taskId: string;
  phase: string;
  model: string;
  llm: LlmSpec;
  /** Scope of replay-cassette lines, as for dex's own model calls. */
  cassetteScope: string;
  sandbox?: SandboxPolicy;
  protectedPaths?: string[];
  /** Protected paths a person allowed in this phase attempt. */
  allowedPaths?: string[];
  /** What the session is told next (a failed verify, a person's answer); absent on the first stretch, whose prompt is the transcript's first message. */
  followUp?: string;
  /** What the stretch may spend; the session is stopped once it has (docs/claude-code.md#gates-and-budgets). */
  allowance?: Allowance;
  claude?: ClaudeSetup;
}

/** How a stretch of a session ended. */
export interface ClaudeSessionResult {
  /** `done`: the session ended its turn; `protected`: it asked to write a protected path; `budget`: its allowance ran out. */
  end: 'done' | 'protected' | 'budget';
  completion: Completion | null;
  textPreview: string;
  usage: TokenUsage;
  costUsd: number;
  model: string;
  /** The stretch's tool calls, one short line each (the last 20). */
  steps: string[];
  /** The transcript's sequence number of the session's last answer (what a phase's artifact is kept from). */
  lastSeq: number;
  /** Model answers in this stretch: the turns it counts for. */
  answers: number;
  /** That answer's turn number in the transcript (what its verify report is kept under, as `dex log` reads it). */
  lastTurn: number;
  /** True when this attempt resumed a session an earlier attempt had started. */
  resumed: boolean;
  protectedWrite?: ProtectedWrite;
}

/** What a resumed session is told when its activity was retried mid-stretch. */
const RESUMED = 'The session was interrupted and has been resumed. Go on with the work where you left off, and end with the completion object.';

/** Builds the Claude Code activity over the host's dependencies. */
export const createClaudeActivities = (deps: ActivityDeps) => {
  const cassettes = new CassetteFiles();
  return {
    runClaudeSession: (input: ClaudeSessionInput): Promise<ClaudeSessionResult> => runSession(deps, cassettes, input),
  };
};

/** A stretch of the session: started, or resumed from its file; stored as it goes; its result kept. */
async function runSession(deps: ActivityDeps, cassettes: CassetteFiles, input: ClaudeSessionInput): Promise<ClaudeSessionResult> {
  const { store } = deps;
  const kept = await store.getArtifact(resultId(input));
  if (kept) return JSON.parse(kept.content) as ClaudeSessionResult;
  const llm = input.llm;
  const policy = input.sandbox ?? DEFAULT_SANDBOX;
  if (policy.mode === 'off') throw nonRetryable(FAILURE.AgentUnavailable, 'agent claude-code runs in the sandbox only: sandbox.mode off is refused for it');
  assertSandboxAvailable(policy);

  const sessionId = sessionIdOf(input.transcriptId);
  const claudeDir = claudeDirOf(input.worktreePath, sessionId);
  const resumed = sessionSaved(claudeDir, sessionId);
  const sources = input.claude?.settingSources ?? ['project'];
  // The person's own set-up, copied once, when the session starts (a resumed one has it).
  if (!resumed && sources.includes('user')) copyPersonSetup(personClaudeDir(), claudeDir);
  const mcpServers = mcpServersOf(input.claude?.mcpServers ?? []);
  const stored = await store.listMessages(input.transcriptId);
  const transcript = new SessionTranscript(store, input, stored, tellStep(input.phase));
  const prompt = await promptOf(deps, input, stored, resumed, transcript);

  let failure: unknown;
  const sockets = mkdtempSync(join(tmpdir(), 'dex-claude-'));
  const abort = new AbortController();
  let stop: ClaudeSessionResult['end'] = 'done';
  let asked: ProtectedWrite | undefined;
  const over = () => input.allowance !== undefined && !fits({ usd: transcript.costUsd, tokens: totalTokens(transcript.usage) }, input.allowance);
  // Live, the relay sends each request on with the worker's key; a cassette (replayed or being recorded) answers in the relay.
  const source: RelaySource =
    llm.kind === 'anthropic'
      ? { upstream: upstreamOf(deps.anthropicClient({ baseUrl: llm.baseUrl })) }
      : { answer: sessionAnswers(deps, cassettes, llm, input, () => transcript.nextSeq), onFailure: (err) => (failure = err) };
  const relay = await startModelRelay({
    socketPath: join(sockets, 'model.sock'),
    ...source,
    headers: { 'x-dex-task': input.taskId, 'x-dex-phase': input.phase },
    admit: () => (over() ? 'dex: the budget for this session is spent; a person decides whether it goes on' : undefined),
    onAnswer: (answer) => {
      transcript.answered(answer);
      if (over()) {
        stop = 'budget';
        abort.abort();
      }
    },
  });
  const proxy = policy.allowHosts.length ? await startEgressProxy(policy.allowHosts, join(sockets, 'proxy.sock')) : undefined;
  const beat = setInterval(() => Context.current().heartbeat({ messages: transcript.nextSeq, step: transcript.steps.at(-1) }), 1_000);
  Context.current().cancellationSignal.addEventListener('abort', () => abort.abort(), { once: true });
  try {
    const { query } = await import('@anthropic-ai/claude-agent-sdk');
    const session = query({
      prompt,
      options: {
        cwd: input.worktreePath,
        model: input.model,
        ...(resumed ? { resume: sessionId } : { sessionId }),
        abortController: abort,
        env: {},
        settingSources: sources,
        ...(Object.keys(mcpServers).length ? { mcpServers: mcpServers as never } : {}),
        permissionMode: 'default',
        canUseTool: async (tool, toolInput) => {
          const write = protectedWrite(tool, toolInput, input.worktreePath, input.protectedPaths ?? [], input.allowedPaths ?? []);
          if (!write) return { behavior: 'allow', updatedInput: toolInput };
          asked = write;
          stop = 'protected';
          return { behavior: 'deny', message: `dex: ${write.path} is protected; a person was asked whether it may change`, interrupt: true };
        },
        spawnClaudeCodeProcess: sandboxedClaude({
          worktree: input.worktreePath,
          policy,
          relaySocket: relay.socketPath,
          proxySocket: proxy?.socketPath,
          claudeDir,
          setup: commandSetup(input.worktreePath),
        }),
      },
    });
    for await (const message of session) {
      await transcript.take(message as never);
      Context.current().heartbeat({ messages: transcript.nextSeq, step: transcript.steps.at(-1) });
    }
  } catch (err) {
    // A stop dex asked for ends the session's stream with an abort: what it had done is kept.
    if (stop === 'done') throw failure ?? classifySessionError(err);
  } finally {
    clearInterval(beat);
    await transcript.flush();
    await relay.close();
    await proxy?.close();
    rmSync(sockets, { recursive: true, force: true });
  }
  const result: ClaudeSessionResult = {
    end: stop,
    completion: stop === 'done' ? extractCompletion(transcript.lastText) : null,
    textPreview: transcript.lastText.slice(0, 200),
    usage: transcript.usage,
    costUsd: transcript.costUsd,
    model: input.model,
    steps: transcript.steps.slice(-20),
    lastSeq: transcript.lastAnswerSeq,
    lastTurn: transcript.turns,
    answers: transcript.answersStored,
    resumed,
    ...(asked ? { protectedWrite: asked } : {}),
  };
  await store.putArtifact(resultId(input), 'claude-session', JSON.stringify(result));
  return result;
}

/**
 * Sends each step to the session's workflow as it happens (`sessionStep`), so the run's status and
 * the Web UI show it at once; a step that cannot be sent is only late: the stretch's result lists it.
 */
function tellStep(phase: string): (step: string) => void {
  const { info } = Context.current();
  const workflowId = info.workflowExecution?.workflowId;
  let client: Client | undefined;
  try {
    client = Context.current().client;
  } catch {
    client = undefined; // an activity run outside a worker (a unit test) has no client
  }
  return (step) => {
    if (client && workflowId) void client.workflow.getHandle(workflowId).signal(sessionStepSignal, { phase, step }).catch(() => undefined);
  };
}

/** The person's MCP servers the session may use; a name they do not have fails the phase, naming it. */
function mcpServersOf(names: string[]): Record<string, Record<string, unknown>> {
  try {
    return personMcpServers(names);
  } catch (err) {
    throw nonRetryable(FAILURE.AgentUnavailable, (err as Error).message);
  }
}

/** The worker's own Anthropic endpoint and key, which the relay sends a live session's calls on to. */
const upstreamOf = (client: { baseURL: string; apiKey: string | null }): { baseUrl: string; apiKey: string | null } => ({ baseUrl: client.baseURL, apiKey: client.apiKey });

/** Where a stretch's result is kept, so a retry after it ended returns it instead of asking the session again. */
const resultId = (input: ClaudeSessionInput): string => `${input.transcriptId}/claude-stretch-${input.stretch}`;

/**
 * What the session is told: the phase's prompt (the transcript's first message) when it starts,
 * the follow-up (kept in the transcript once) when it goes on, and a note to go on when a retried
 * attempt resumes it mid-stretch.
 */
async function promptOf(deps: ActivityDeps, input: ClaudeSessionInput, stored: { seq: number; role: string; content: unknown }[], resumed: boolean, transcript: SessionTranscript): Promise<string> {
  const first = stored.find((m) => m.seq === 0);
  if (!first) throw nonRetryable(FAILURE.TranscriptError, `${input.transcriptId} has no prompt: fetchContext did not run`);
  const begun = await deps.store.getArtifact(`${resultId(input)}/begun`);
  if (!begun) {
    if (input.followUp) await deps.store.appendMessage(input.transcriptId, transcript.nextSeq++, 'user', [{ type: 'text', text: input.followUp }]);
    await deps.store.putArtifact(`${resultId(input)}/begun`, 'claude-session', '');
  }
  if (begun && resumed) return RESUMED;
  if (input.followUp) return input.followUp;
  return textOf(first.content);
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.filter((b: { type?: string }) => b.type === 'text').map((b: { text?: string }) => b.text ?? '').join('\n\n') : '';
