import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEnd } from '../../../client/run/follow-run';
import { buildLayerInput } from '../../../client/requests/layer-request';
import { readSettings } from '../../../client/settings';
import type { CassetteLine } from '../../../core/parsing/cassette';
import type { LayerRunRecord } from '../../../core/layer/layer-types';
import { toJsonl } from '../../support/model/cassette-builder';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { runDex, type DexRun } from '../../support/env/dex-cli';
import { answerLine, insightLine, layerDir, messagesFor } from '../../support/plans/layer-fixtures';
import { targetModelCalls } from '../../support/plans/layer-targets';

// `dex layer --resume RUN`: the real binary, on this file's server and store (docs/layers.md#resuming-a-run).
const testEnv = useDexEnvironment({ server: 'dev', queue: 'dex-it-layer-resume' });

const store = () => testEnv.worker.deps.store.layers;
const phasesOf = async (runId: string, topic: string) => (await targetModelCalls(testEnv.worker.deps.store, runId, topic)).map((c) => c.phase);

const THINK_TEMPLATE = 'Think again about {{topic}}.\n\nMessages:\n{{messages}}\n\nYour first answer:\n{{reply}}\n';
/** After the fixture's reflect → store: a second model call over the first answer, and its store. */
const SECOND_CALL = `  - name: think
    type: llm_call
    params: { prompt_template: prompts/think.md }
  - name: keep
    type: store_insight
    params: { category: second-thought }
`;

function dex(...args: string[]): Promise<DexRun> {
  const { env, worker } = testEnv;
  const vars = { TEMPORAL_ADDRESS: env.address, DEX_HOME: worker.dexHome, DEX_TASK_QUEUE: worker.taskQueue, DEX_HOST_QUEUE: worker.hostQueue, NODE_OPTIONS: undefined };
  return runDex(args, { env: vars, timeoutMs: 120_000 });
}

/** Starts a checked layer file as `workflowId` on this file's worker; `beforeStart` runs after the check (to break the layer). */
async function runLayer(file: string, cassette: string, workflowId: string, beforeStart = () => {}) {
  const input = buildLayerInput(file, { llm: `replay:${cassette}` }, { ...readSettings({}), hostQueue: testEnv.worker.hostQueue });
  beforeStart();
  const end = await runEnd<LayerRunRecord>(await testEnv.start('layerWorkflow', workflowId, input));
  expect(end.result).toBeDefined();
  return { end, record: end.result! };
}

function cassetteFile(dir: string, name: string, lines: CassetteLine[]): string {
  const path = join(dir, name);
  writeFileSync(path, toJsonl(lines));
  return path;
}

describe('dex layer --resume RUN', () => {
  it('after a missing template at the second llm_call, re-runs only that node onward, reusing what the nodes before it made', async () => {
    const topics = ['res-1', 'res-2'];
    await store().importMessages(messagesFor(topics));
    const layer = layerDir({ name: 'twocall', topics, cassette: topics.map((t) => insightLine(t, 'reflect')), extraYaml: SECOND_CALL });
    const think = join(layer.dir, 'prompts', 'think.md');
    writeFileSync(think, THINK_TEMPLATE);
    // The file checks out; the template is gone by the time the second call renders it.
    const first = await runLayer(layer.file, layer.cassette, 'layer-resume-1', () => unlinkSync(think));
    expect(first.end.state).toBe('failed');
    expect(first.record.errors.map((e) => [e.target, e.node])).toEqual(topics.map((t) => [t, 'think']));
    expect(first.record.errors[0].error).toContain('prompt template');
    expect(first.record.resumable).toEqual(
      topics.map((t) => ({
        target: t,
        index: 4,
        node: 'think',
        context: { messages: { key: `layer-resume-1/${t}/fetch`, count: 3 }, insights: { key: `layer-resume-1/${t}/prior`, count: 0 }, reply: { transcriptId: `layer-resume-1/${t}/reflect`, seq: 1 } },
      })),
    );
    expect(await store().listInsights({ layerRunId: 'layer-resume-1' })).toHaveLength(2);

    // Fixed: the template is back. The cassette answers reflect too: a resume that re-ran it would take those lines.
    writeFileSync(think, THINK_TEMPLATE);
    const answers = cassetteFile(layer.dir, 'resume.jsonl', [...topics.map((t) => insightLine(t, 'reflect')), ...topics.map((t) => insightLine(t, 'think'))]);
    const run = await dex('layer', '--resume', 'layer-resume-1', '--llm', `replay:${answers}`, '--json');
    expect(run.code, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout) as { workflowId: string; state: string; result: LayerRunRecord };
    const resumed = printed.workflowId;
    expect(printed).toMatchObject({ state: 'completed', result: { status: 'success', resumes: 'layer-resume-1', targetsMatched: 2, insightsCreated: 2, resumable: [] } });

    for (const t of topics) {
      // Only the failed node's model call was made again: one call per target, at `think`.
      expect(await phasesOf(resumed, t)).toEqual(['think']);
      const prompt = JSON.stringify((await testEnv.worker.deps.store.getMessage(`${resumed}/${t}/think`, 0))?.content);
      expect(prompt).toContain(`${t} keeps coming back to deadlines`);
      expect(prompt).toContain(`message 2 about ${t}`);
      // Salience only for the call made: reserved and settled at `think`.
      expect((await store().salienceEntries(`${resumed}/${t}/`)).map((e) => e.key)).toEqual([`${resumed}/${t}/think/reserve`, `${resumed}/${t}/think/settle`]);
    }
    expect((await store().listInsights({ layerRunId: resumed })).map((i) => i.id).sort()).toEqual(topics.map((t) => `${resumed}/${t}/keep`));
    expect((await store().getLayerRun(resumed))?.resumes).toBe('layer-resume-1');

    // The resumed run is done: nothing to resume there (exit 0); the first run may not be resumed twice.
    const nothing = await dex('layer', '--resume', resumed);
    expect(nothing.code, nothing.stderr).toBe(0);
    expect(nothing.stdout).toContain(`${resumed}: nothing to resume: no target failed`);
    const again = await dex('layer', '--resume', 'layer-resume-1');
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`layer-resume-1 was resumed already by ${resumed}`);
  }, 180_000);

  it('a target failed by its answer resumes from the model call; the targets that succeeded are not run again', async () => {
    const topics = ['ans-1', 'ans-2'];
    await store().importMessages(messagesFor(topics));
    const layer = layerDir({ name: 'byanswer', topics, parse: 'strict', cassette: [insightLine(topics[0], 'reflect'), answerLine(topics[1], 'reflect', 'no JSON')] });
    const first = await runLayer(layer.file, layer.cassette, 'layer-byanswer-first');
    expect(first.record.status).toBe('partial');
    expect(first.record.resumable.map((p) => [p.target, p.node, p.index])).toEqual([[topics[1], 'reflect', 2]]);

    const answers = cassetteFile(layer.dir, 'resume.jsonl', topics.map((t) => insightLine(t, 'reflect')));
    const run = await dex('layer', '--resume', 'layer-byanswer-first', '--llm', `replay:${answers}`, '--json');
    expect(run.code, run.stderr).toBe(0);
    const { workflowId, result } = JSON.parse(run.stdout) as { workflowId: string; result: LayerRunRecord };
    expect(result).toMatchObject({ status: 'success', targetsMatched: 1, insightsCreated: 1 });
    expect(await phasesOf(workflowId, topics[0])).toEqual([]);
    expect(await phasesOf(workflowId, topics[1])).toEqual(['reflect']);
  }, 120_000);

  it('refuses in one line, exit 2, a run this host has no record of, and a layer file beside --resume', async () => {
    const missing = await dex('layer', '--resume', 'layer-nope-9');
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('no layer run "layer-nope-9" is recorded on this host');
    const both = await dex('layer', 'x.layer.yaml', '--resume', 'layer-nope-9');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--resume RUN takes no layer file');
  });
});
