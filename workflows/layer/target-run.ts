import { workflowInfo } from '@temporalio/workflow';
import { emptyTargetResult } from '../../core/layer-run';
import type { LayerNode, LayerTargetInput, LayerTargetResult, LlmCallParams, ParseMode, TargetContext } from '../../core/layer-types';
import { addUsage } from '../../core/usage';
import type { LayerActivities } from './activities';

/** The follow-up of a `repair` store: one more model call asking for the insight as JSON. */
const REPAIR_PROMPT =
  'Your answer above could not be read as an insight. Answer again with only one JSON object, no other text: ' +
  '{"content": "<the insight>", "confidence": 0-1, "importance": 0-1, "novelty": 0-1, "strength_adjustment": 0-10, ' +
  '"valence": {"joy": 0-1, "concern": 0-1, "curiosity": 0-1, "warmth": 0-1, "tension": 0-1}}';

/** A node that cannot go on; the target fails at it and the other targets go on. */
export class NodeFailure extends Error {}

/**
 * The state of one target's run through the layer's nodes (its result so far, the context
 * nodes pass on by reference, whether its salience is paid) and the node steps that change it.
 * Deterministic bookkeeping and activity calls only; the workflow drives it node by node.
 */
export class TargetRun {
  readonly result: LayerTargetResult;
  private readonly ctx: TargetContext;
  private readonly cassetteScope: string;
  private lastLlm: LlmCallParams | undefined;
  private salienceChecked: boolean;

  constructor(
    private readonly input: LayerTargetInput,
    private readonly acts: LayerActivities,
  ) {
    this.result = emptyTargetResult(input.target);
    this.ctx = { ...input.seed };
    this.cassetteScope = workflowInfo().root?.workflowId ?? input.runId;
    this.salienceChecked = !input.paysSalience || input.salience.cost === 0;
  }

  /** The idempotency key of step `name` of this target. */
  keyOf(name: string): string {
    return `${this.input.runId}/${this.input.target}/${name}`;
  }

  /** Runs one node; false when the target ends here without failing (nothing to do, or no budget). */
  async runNode(node: LayerNode): Promise<boolean> {
    const { acts, input, result, ctx } = this;
    const target = input.target;
    switch (node.type) {
      case 'fetch_messages': {
        const r = await acts.fetchLayerMessages({ key: this.keyOf(node.name), topic: target, now: input.now, ...node.params }, `${target} · ${node.name} · messages`);
        ctx.messages = r.ref;
        result.messages += r.ref.count;
        result.messagesTrimmed += r.trimmed;
        result.contextTokens += r.tokens;
        if (r.ref.count > 0) return true;
        result.status = 'skipped';
        result.reason = `no messages in the last ${node.params.lookbackHours}h`;
        return false;
      }
      case 'fetch_insights':
        const query = { key: this.keyOf(node.name), topic: target, profile: node.params.retrievalProfile, maxPerTopic: node.params.maxPerTopic };
        ctx.insights = await acts.fetchLayerInsights(query, `${target} · ${node.name} · insights`);
        return true;
      case 'llm_call':
        if (!(await this.paidForAttempt())) return false;
        await this.llmCall(node.name, node.params);
        return true;
      case 'synthesize_to_global':
        if (!(await this.paidForAttempt())) return false;
        await this.llmCall(node.name, node.params);
        await this.storeInsight(node.name, node.params.category, node.params.parse);
        return true;
      case 'store_insight':
        await this.storeInsight(node.name, node.params.category, node.params.parse);
        return true;
      case 'output': {
        const written = await acts.writeLayerText({ path: node.params.path, topic: target, reply: ctx.reply! }, `${target} · ${node.name} · write ${node.params.path}`);
        if (written.text !== undefined) result.outputs.push({ node: node.name, text: written.text });
        return true;
      }
      case 'update_self_concept':
        await acts.writeLayerText({ path: node.params.documentPath, topic: target, reply: ctx.reply! }, `${target} · ${node.name} · write ${node.params.documentPath}`);
        return true;
      case 'reduce':
        // The parent reduces before it starts the global part; a reduce here has its context as the seed.
        return true;
    }
  }

  /** Gives back the refundable part of the salience a failed target spent. */
  async refundSalience(): Promise<void> {
    const amount = this.result.salienceSpent * this.input.salience.refund;
    if (amount <= 0) return;
    const refund = { key: this.keyOf('salience-refund'), topic: this.input.target, amount, runId: this.input.runId };
    await this.acts.refundTargetSalience(refund, `${this.input.target} · refund salience ${round(amount)}`);
    this.result.salienceSpent -= amount;
  }

  private async callModel(node: string, params: LlmCallParams, transcriptId: string, userSeq: number, followUpText?: string): Promise<void> {
    const { input, result } = this;
    const r = await this.acts.callLayerModel({
      transcriptId,
      userSeq,
      followUpText,
      target: input.target,
      node,
      model: params.model ?? input.defaultModel,
      maxTokens: params.maxTokens,
      llm: input.llm,
      cassetteScope: this.cassetteScope,
    }, `${input.target} · ${node} · model${followUpText ? ' (repair)' : ''}`);
    result.tokens = addUsage(result.tokens, r.usage);
    result.costUsd += r.costUsd;
    result.modelCalls++;
    result.model ??= r.model;
    this.ctx.reply = { transcriptId, seq: r.replySeq };
  }

  /** Spends the attempt's salience before the first model call; false when the budget does not cover it. */
  private async paidForAttempt(): Promise<boolean> {
    if (this.salienceChecked) return true;
    this.salienceChecked = true;
    const { cost } = this.input.salience;
    const charge = { key: this.keyOf('salience'), topic: this.input.target, cost, runId: this.input.runId };
    const spend = await this.acts.spendTargetSalience(charge, `${this.input.target} · spend salience ${cost}`);
    if (!spend.spent) {
      this.result.status = 'skipped';
      this.result.reason = `salience budget spent: balance ${round(spend.balance)} < cost ${cost}`;
      return false;
    }
    this.result.salienceSpent = cost;
    return true;
  }

  private async llmCall(node: string, params: LlmCallParams): Promise<void> {
    this.lastLlm = params;
    const transcriptId = this.keyOf(node);
    const { input } = this;
    const prompt = { transcriptId, templatePath: params.promptTemplate, topic: input.target, layerName: input.layerName, context: this.ctx };
    await this.acts.renderLayerPrompt(prompt, `${input.target} · ${node} · prompt`);
    await this.callModel(node, params, transcriptId, 0);
  }

  private async storeInsight(node: string, category: string, parse: ParseMode): Promise<void> {
    const store = () =>
      this.acts.storeLayerInsight({
        id: this.keyOf(node),
        topic: this.input.target,
        category,
        reply: this.ctx.reply!,
        parse: parse === 'graceful' ? 'graceful' : 'strict',
        layerRunId: this.input.runId,
        salienceSpent: this.result.salienceSpent,
      }, `${this.input.target} · ${node} · store insight`);
    let stored = await store();
    if (!stored.stored && parse === 'repair' && this.lastLlm) {
      const reply = this.ctx.reply!;
      await this.callModel(node, this.lastLlm, reply.transcriptId, reply.seq + 1, REPAIR_PROMPT);
      stored = await store();
      if (!stored.stored) throw new NodeFailure(`after one repair request, ${stored.reason}`);
    }
    if (!stored.stored) throw new NodeFailure(stored.reason);
    this.result.insightIds.push(stored.insightId);
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
