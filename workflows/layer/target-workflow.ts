import { isCancellation, workflowInfo } from '@temporalio/workflow';
import { emptyTargetResult } from '../../core/layer-run';
import type { LayerNode, LayerTargetInput, LayerTargetResult, LlmCallParams, ParseMode, TargetContext } from '../../core/layer-types';
import { addUsage } from '../../core/usage';
import { layerActivities } from './activities';
import { innermostMessage } from '../../core/failure-message';

/** The follow-up of a `repair` store: one more model call asking for the insight as JSON. */
const REPAIR_PROMPT =
  'Your answer above could not be read as an insight. Answer again with only one JSON object, no other text: ' +
  '{"content": "<the insight>", "confidence": 0-1, "importance": 0-1, "novelty": 0-1, "strength_adjustment": 0-10, ' +
  '"valence": {"joy": 0-1, "concern": 0-1, "curiosity": 0-1, "warmth": 0-1, "tension": 0-1}}';

/** A node that cannot go on; the target fails at it and the other targets go on. */
class NodeFailure extends Error {}

/**
 * One target of a layer run: the nodes in order, passing store references between them. A
 * child workflow of its own, so each target has its own history and, after a crash, resumes
 * at the node it was in: fetches and model calls that completed are never run again.
 * Salience is spent just before the first model call and partly refunded if the target fails.
 */
export async function layerTargetWorkflow(input: LayerTargetInput): Promise<LayerTargetResult> {
  const acts = layerActivities(input.hostQueue);
  const { target, runId } = input;
  const cassetteScope = workflowInfo().root?.workflowId ?? runId;
  const result = emptyTargetResult(target);
  const ctx: TargetContext = { ...input.seed };
  const keyOf = (name: string) => `${runId}/${target}/${name}`;
  let lastLlm: LlmCallParams | undefined;
  let salienceChecked = !input.paysSalience || input.salience.cost === 0;
  let current = '';

  async function callModel(node: string, params: LlmCallParams, transcriptId: string, userSeq: number, followUpText?: string): Promise<void> {
    const r = await acts.callLayerModel({
      transcriptId,
      userSeq,
      followUpText,
      target,
      node,
      model: params.model ?? input.defaultModel,
      maxTokens: params.maxTokens,
      llm: input.llm,
      cassetteScope,
    });
    result.tokens = addUsage(result.tokens, r.usage);
    result.costUsd += r.costUsd;
    result.modelCalls++;
    result.model ??= r.model;
    ctx.reply = { transcriptId, seq: r.replySeq };
  }

  /** Spends the attempt's salience before the first model call; false when the budget does not cover it. */
  async function paidForAttempt(): Promise<boolean> {
    if (salienceChecked) return true;
    salienceChecked = true;
    const { cost } = input.salience;
    const spend = await acts.spendTargetSalience({ key: keyOf('salience'), topic: target, cost, runId });
    if (!spend.spent) {
      result.status = 'skipped';
      result.reason = `salience budget spent: balance ${round(spend.balance)} < cost ${cost}`;
      return false;
    }
    result.salienceSpent = cost;
    return true;
  }

  async function llmCall(node: string, params: LlmCallParams): Promise<void> {
    lastLlm = params;
    const transcriptId = keyOf(node);
    await acts.renderLayerPrompt({ transcriptId, templatePath: params.promptTemplate, topic: target, layerName: input.layerName, context: ctx });
    await callModel(node, params, transcriptId, 0);
  }

  async function storeInsight(node: string, category: string, parse: ParseMode): Promise<void> {
    const store = () =>
      acts.storeLayerInsight({
        id: keyOf(node),
        topic: target,
        category,
        reply: ctx.reply!,
        parse: parse === 'graceful' ? 'graceful' : 'strict',
        layerRunId: runId,
        salienceSpent: result.salienceSpent,
      });
    let stored = await store();
    if (!stored.stored && parse === 'repair' && lastLlm) {
      const reply = ctx.reply!;
      await callModel(node, lastLlm, reply.transcriptId, reply.seq + 1, REPAIR_PROMPT);
      stored = await store();
      if (!stored.stored) throw new NodeFailure(`after one repair request, ${stored.reason}`);
    }
    if (!stored.stored) throw new NodeFailure(stored.reason);
    result.insightIds.push(stored.insightId);
  }

  /** Runs one node; false when the target ends here without failing (nothing to do, or no budget). */
  async function runNode(node: LayerNode): Promise<boolean> {
    switch (node.type) {
      case 'fetch_messages': {
        const r = await acts.fetchLayerMessages({ key: keyOf(node.name), topic: target, now: input.now, ...node.params });
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
        ctx.insights = await acts.fetchLayerInsights({ key: keyOf(node.name), topic: target, profile: node.params.retrievalProfile, maxPerTopic: node.params.maxPerTopic });
        return true;
      case 'llm_call':
        if (!(await paidForAttempt())) return false;
        await llmCall(node.name, node.params);
        return true;
      case 'synthesize_to_global':
        if (!(await paidForAttempt())) return false;
        await llmCall(node.name, node.params);
        await storeInsight(node.name, node.params.category, node.params.parse);
        return true;
      case 'store_insight':
        await storeInsight(node.name, node.params.category, node.params.parse);
        return true;
      case 'output': {
        const written = await acts.writeLayerText({ path: node.params.path, topic: target, reply: ctx.reply! });
        if (written.text !== undefined) result.outputs.push({ node: node.name, text: written.text });
        return true;
      }
      case 'update_self_concept':
        await acts.writeLayerText({ path: node.params.documentPath, topic: target, reply: ctx.reply! });
        return true;
      case 'reduce':
        // The parent reduces before it starts the global part; a reduce here has its context as the seed.
        return true;
    }
  }

  try {
    for (const node of input.nodes) {
      current = node.name;
      if (!(await runNode(node))) break;
    }
  } catch (err) {
    if (isCancellation(err)) throw err;
    result.status = 'failed';
    result.error = { node: current, message: innermostMessage(err) };
    const amount = result.salienceSpent * input.salience.refund;
    if (amount > 0) {
      await acts.refundTargetSalience({ key: keyOf('salience-refund'), topic: target, amount, runId });
      result.salienceSpent -= amount;
    }
  }
  return result;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

