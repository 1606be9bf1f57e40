import { EMPTY_ANSWER } from '../insight-parse';
import { promptLimit, promptTokens } from '../layer-budget';
import type { LayerTargetInput, LayerTargetResult, LlmCallParams, ParseMode, TargetContext } from '../layer-types';
import type { TokenUsage } from '../../run/run-types';
import { addUsage, addUsd, tokensIn } from '../../run/usage';
import type { TargetSteps } from './target-steps';
import type { SalienceAccount } from './target-salience';

/** The follow-up of a `repair` store: one more model call asking for the insight as JSON. */
const REPAIR_PROMPT =
  'Your answer above could not be read as an insight. Answer again with only one JSON object, no other text: ' +
  '{"content": "<the insight>", "confidence": 0-1, "importance": 0-1, "novelty": 0-1, "strength_adjustment": 0-10, ' +
  '"valence": {"joy": 0-1, "concern": 0-1, "curiosity": 0-1, "warmth": 0-1, "tension": 0-1}}';

/**
 * A node that cannot go on; the target fails at it and the other targets go on. `byAnswer`: the
 * model's answer was the trouble (empty, or no insight in it), so a resume asks the model again
 * instead of re-reading the same answer (docs/layers.md#resuming-a-run).
 */
export class NodeFailure extends Error {
  constructor(
    message: string,
    readonly byAnswer = false,
  ) {
    super(message);
  }
}

/**
 * A target's model steps: rendering a prompt to its budget, reserving and settling salience
 * around each call, storing the insight in an answer (with one repair call under `repair`).
 * Deterministic bookkeeping and step calls only: it runs in a workflow and in an activity.
 */
export class TargetModel {
  private lastLlm: LlmCallParams | undefined;
  private lastUsage: TokenUsage | undefined;
  constructor(
    private readonly input: LayerTargetInput,
    private readonly acts: TargetSteps,
    private readonly result: LayerTargetResult,
    private readonly ctx: TargetContext,
    private readonly salience: SalienceAccount,
    private readonly keyOf: (name: string) => string,
    /** Cassette lines are claimed per layer run: the root of the target's child workflow, or what the layer passed a target run as one activity. */
    private readonly cassetteScope: string,
  ) {}

  /**
   * Renders the node's prompt within its budget, reserves its salience and asks the model; a
   * skip reason when the prompt cannot fit or the balance does not cover it (no call then).
   * A run started by release 2026-11-22-0603 pays its flat attempt cost first, before rendering, as it did then.
   */
  async llmCall(node: string, params: LlmCallParams): Promise<{ ok: true } | { ok: false; reason: string }> {
    const { input, result } = this;
    this.lastLlm = params;
    const transcriptId = this.keyOf(node);
    const perRun = input.context.maxTokensPerRun;
    if (this.salience.perAttempt) {
      const paid = await this.salience.payAttempt();
      if (!paid.ok) return paid;
    }
    const rendered = await this.acts.renderLayerPrompt(
      {
        transcriptId,
        templatePath: params.promptTemplate,
        ...(input.templates?.[params.promptTemplate] ? { templateSha: input.templates[params.promptTemplate] } : {}),
        node,
        topic: input.target,
        layerName: input.layerName,
        context: this.ctx,
        limit: promptLimit(params.maxContextTokens, input.context, result.promptTokens),
        trim: input.context.trim,
        ...(perRun !== undefined && input.runTokensLeft !== undefined ? { run: { tokensLeft: input.runTokensLeft - result.promptTokens, maxTokens: perRun } } : {}),
      },
      `${input.target} · ${node} · prompt`,
    );
    // release 2026-11-22-0603's render answered only `{ tokens }` (it had no budgets): a run it started, replayed, reads that as rendered.
    const fitted = rendered.rendered === undefined ? { rendered: true as const, tokens: (rendered as { tokens: number }).tokens, messagesTrimmed: 0, insightsTrimmed: 0 } : rendered;
    if (!fitted.rendered) return { ok: false, reason: fitted.reason };
    const reserved = await this.salience.reserve(transcriptId, node, fitted.tokens);
    if (!reserved.ok) return reserved;
    result.promptTokens += fitted.tokens;
    result.messagesTrimmed += fitted.messagesTrimmed;
    result.insightsTrimmed += fitted.insightsTrimmed;
    await this.callModel(node, params, transcriptId, transcriptId, 0);
    return { ok: true };
  }

  /** Stores the insight in the last answer; an empty answer fails at once, an unreadable one gets one repair call under `repair`. */
  async storeInsight(node: string, category: string, parse: ParseMode): Promise<void> {
    const store = () =>
      this.acts.storeLayerInsight(
        {
          id: this.keyOf(node),
          topic: this.input.target,
          category,
          reply: this.ctx.reply!,
          parse: parse === 'graceful' ? 'graceful' : 'strict',
          layerRunId: this.input.runId,
          salienceSpent: this.result.salienceSpent,
        },
        `${this.input.target} · ${node} · store insight`,
      );
    let stored = await store();
    // An empty answer has nothing to repair: its failure says so and a resume asks again (docs/layers.md#parse-modes-store_insight).
    if (!stored.stored && stored.empty) throw new NodeFailure(EMPTY_ANSWER, true);
    if (!stored.stored && parse === 'repair' && this.lastLlm) {
      await this.repair(node, this.lastLlm);
      stored = await store();
      if (!stored.stored) throw new NodeFailure(`after one repair request, ${stored.reason}`, true);
    }
    if (!stored.stored) throw new NodeFailure(stored.reason, true);
    this.result.insightIds.push(stored.insightId);
  }

  /** The repair call, in the same transcript: reserved on the transcript so far (prompt, answer, request). */
  private async repair(node: string, params: LlmCallParams): Promise<void> {
    const reply = this.ctx.reply!;
    const callKey = `${this.keyOf(node)}/repair`;
    const last = this.lastUsage;
    const estimate = (last ? tokensIn(last) + last.output : 0) + promptTokens(REPAIR_PROMPT);
    const reserved = await this.salience.reserve(callKey, node, estimate);
    if (!reserved.ok) throw new NodeFailure(`the answer holds no insight, and a repair request cannot be paid: ${reserved.reason}`, true);
    await this.callModel(node, params, reply.transcriptId, callKey, reply.seq + 1, REPAIR_PROMPT);
  }

  private async callModel(node: string, params: LlmCallParams, transcriptId: string, callKey: string, userSeq: number, followUpText?: string): Promise<void> {
    const { input, result } = this;
    const r = await this.acts.callLayerModel(
      {
        transcriptId,
        userSeq,
        followUpText,
        target: input.target,
        node,
        model: params.model ?? input.defaultModel,
        maxTokens: params.maxTokens,
        llm: input.llm,
        cassetteScope: this.cassetteScope,
      },
      `${input.target} · ${node} · model${followUpText ? ' (repair)' : ''}`,
    );
    await this.salience.settle(callKey, node, r.usage);
    this.lastUsage = r.usage;
    result.tokens = addUsage(result.tokens, r.usage);
    result.costUsd = addUsd(result.costUsd, r.costUsd);
    result.modelCalls++;
    result.model ??= r.model;
    this.ctx.reply = { transcriptId, seq: r.replySeq };
  }
}
