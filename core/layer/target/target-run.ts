import { EMPTY_ANSWER } from '../insight-parse';
import { innermostMessage } from '../../run/failure-message';
import { emptyTargetResult } from '../layer-run';
import type { LayerNode, LayerTargetInput, LayerTargetResult, ResumePoint, TargetContext } from '../layer-types';
import type { TargetSteps } from './target-steps';
import { NodeFailure, TargetModel } from './target-model';
import { SalienceAccount } from './target-salience';

export { NodeFailure };

/**
 * How often a layer target run as one activity is tried (workflows/run/policies.ts
 * layerTargetPolicy); its last attempt records the failure as the target's result.
 */
export const TARGET_ATTEMPTS = 10;

/** Where a node started: its index in the target's part of the layer and the context it had then. */
type NodeStart = Omit<ResumePoint, 'target'>;

/**
 * The state of one target's run through the layer's nodes (its result so far, the context
 * nodes pass on by reference, its salience account) and the node steps that change it. It
 * remembers where each node started, so a failure records where a resume goes on from.
 * Deterministic bookkeeping and step calls only: a target's child workflow runs it with its
 * activities as the steps, the `runLayerTargets` activity with the layer's functions
 * (docs/layers.md#where-a-target-runs); each gives it what differs as input (the steps, the
 * cassette scope).
 */
export class TargetRun {
  readonly result: LayerTargetResult;
  private readonly ctx: TargetContext;
  private readonly salience: SalienceAccount;
  private readonly model: TargetModel;
  /** The node running now, and the node whose answer is the last reply. */
  private current: NodeStart | undefined;
  private answeredBy: NodeStart | undefined;

  constructor(
    private readonly input: LayerTargetInput,
    private readonly acts: TargetSteps,
    cassetteScope: string,
  ) {
    this.result = emptyTargetResult(input.target);
    this.ctx = { ...input.seed };
    this.salience = new SalienceAccount(input, acts, this.result);
    this.model = new TargetModel(input, acts, this.result, this.ctx, this.salience, (name) => this.keyOf(name), cassetteScope);
  }

  /** The idempotency key of step `name` of this target. */
  keyOf(name: string): string {
    return `${this.input.runId}/${this.input.target}/${name}`;
  }

  /**
   * Runs the target's nodes in order until one ends it; an error `rethrows` accepts is thrown on
   * (a cancellation; in an activity, one a retry may get past), any other fails the target there.
   */
  async runAll(rethrows: (err: unknown) => boolean): Promise<LayerTargetResult> {
    try {
      for (const [i, node] of this.input.nodes.entries()) {
        if (!(await this.runNode(node, this.input.firstIndex + i))) break;
      }
    } catch (err) {
      if (rethrows(err)) throw err;
      await this.fail(innermostMessage(err), err);
    }
    return this.result;
  }

  /** Runs the node at `index` of the target's part; false when the target ends here without failing (nothing to do, no budget). */
  async runNode(node: LayerNode, index: number): Promise<boolean> {
    const { acts, input, result, ctx } = this;
    const target = input.target;
    // A shallow copy is enough: nodes replace the context's references, never change them in place.
    this.current = { index, node: node.name, context: { ...ctx } };
    switch (node.type) {
      case 'fetch_messages': {
        const r = await acts.fetchLayerMessages({ key: this.keyOf(node.name), topic: target, now: input.now, ...node.params }, `${target} · ${node.name} · messages`);
        ctx.messages = r.ref;
        result.messages += r.ref.count;
        result.messagesTrimmed += r.trimmed;
        result.contextTokens += r.tokens;
        if (r.ref.count > 0) return true;
        return this.skip(`no messages in the last ${node.params.lookbackHours}h`);
      }
      case 'fetch_insights': {
        const { retrievalProfile: profile, maxPerTopic, includeUnparsed } = node.params;
        const query = { key: this.keyOf(node.name), topic: target, profile, maxPerTopic, includeUnparsed };
        ctx.insights = await acts.fetchLayerInsights(query, `${target} · ${node.name} · insights`);
        return true;
      }
      case 'llm_call':
        return this.ask(node.name, node.params);
      case 'synthesize_to_global':
        if (!(await this.ask(node.name, node.params))) return false;
        await this.model.storeInsight(node.name, node.params.category, node.params.parse);
        return true;
      case 'store_insight':
        await this.model.storeInsight(node.name, node.params.category, node.params.parse);
        return true;
      case 'output':
      case 'update_self_concept':
        await this.write(node);
        return true;
      case 'reduce':
        // The parent reduces before it starts the global part; a reduce here has its context as the seed.
        return true;
    }
  }

  /**
   * Records the failure at the node running now and where a resume goes on from: that node,
   * or, when the answer was the trouble, the node that asked for it (the same answer would fail
   * the same way). Then refunds part of the salience spent.
   */
  async fail(message: string, err: unknown): Promise<void> {
    const { result } = this;
    result.status = 'failed';
    result.error = { node: this.current?.node ?? '(before any node)', message };
    const from = err instanceof NodeFailure && err.byAnswer && this.answeredBy ? this.answeredBy : this.current;
    if (from) result.failedAt = from;
    await this.salience.refund(this.keyOf('salience-refund'));
  }

  private async ask(node: string, params: Parameters<TargetModel['llmCall']>[1]): Promise<boolean> {
    const asked = this.current;
    const r = await this.model.llmCall(node, params);
    if (!r.ok) return this.skip(r.reason);
    this.answeredBy = asked;
    return true;
  }

  private async write(node: Extract<LayerNode, { type: 'output' | 'update_self_concept' }>): Promise<void> {
    const { target } = this.input;
    const path = node.type === 'output' ? node.params.path : node.params.documentPath;
    const written = await this.acts.writeLayerText({ path, topic: target, reply: this.ctx.reply! }, `${target} · ${node.name} · write ${path ?? '(print)'}`);
    if (written.empty) throw new NodeFailure(`${EMPTY_ANSWER}: nothing to ${path ? `write to ${path}` : 'print'}`, true);
    if (node.type === 'output' && written.text !== undefined) this.result.outputs.push({ node: node.name, text: written.text });
  }

  private skip(reason: string): false {
    this.result.status = 'skipped';
    this.result.reason = reason;
    return false;
  }
}
