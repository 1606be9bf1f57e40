import { resolve } from 'node:path';
import { layerWorkflowIdPrefix } from '../../core/run/ids';
import { plural, someOf } from '../../core/text/plural';
import { onePositional, parseCommandArgs, UsageError, type Output } from '../cli-context';
import { COMMAND_HELP, usageOf } from '../command-help';
import { withExistingStore, withStore } from '../command-store';
import type * as DriveRun from '../run/drive-run';
import type { LayerInput } from '../../core/layer/layer-types';
import { buildLayerInput } from '../requests/layer-request';
import { layerActivityQueue } from '../run/layer-queue';
import { storeLayerTemplates } from '../requests/layer-templates';
import { buildLayerResumeInput, notRecorded } from '../requests/layer-resume';
import { describeDrivenRun } from '../render/render-run-end';
import { PLAN_KINDS } from '../plan-kinds';
import { layerAbout, type RunAbout } from '../run/run-about';
import { readSettings } from '../settings';
import { commandSettings } from '../run-queues';
import { readTopicMessages } from '../requests/topic-messages-file';
import type { DexStore } from '../../store/dex-store';
import { layerOutcomeOf, snapshotLayerWorld } from '../requests/layer-recording';
import { writePlanSidecar, type LayerWorld } from '../requests/recorded-plans';

/** `dex layer FILE.layer.yaml` or `dex layer --resume RUN`: one layer run, checked before anything starts. */
export async function layerCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, COMMAND_HELP.layer.options);
  const settings = commandSettings(values.detach);
  // Templates travel in the store and the queue may be the store's own: both need the store open, once.
  const ready = async (store: DexStore, checked: LayerInput): Promise<LayerInput> => {
    await storeLayerTemplates(store, checked.templates ?? {});
    return { ...checked, hostQueue: layerActivityQueue(settings, values.detach, store) };
  };
  let input: LayerInput;
  let about: RunAbout;
  // A recording followed to its end keeps what it read of the store, for `dex replay-test` (docs/interfaces.md#recording-a-run).
  let recording: { file: string; world: LayerWorld; clock: number } | undefined;
  if (values.resume !== undefined) {
    const runId = values.resume;
    if (positionals.length > 0) throw new UsageError(`--resume RUN takes no layer file (the run's own layer is resumed): ${usageOf('layer')}`);
    const resume = await withExistingStore(
      settings.store,
      async (store) => {
        const found = await buildLayerResumeInput(store, runId, { llm: values.llm }, settings);
        return 'nothing' in found ? found : { input: await ready(store, found.input) };
      },
      async (location) => {
        throw notRecorded(runId, location);
      },
    );
    if ('nothing' in resume) {
      out.result(resume.nothing, { resumes: runId, nothingToResume: true });
      return 0;
    }
    input = resume.input;
    const n = input.resume!.points.length;
    about = { title: input.layer.name, summary: `Layer ${input.layer.name}: resumes ${runId} (${plural(n, 'failed target')})` };
  } else {
    const file = resolve(onePositional(positionals, 'a layer file', usageOf('layer')));
    const checked = buildLayerInput(file, { llm: values.llm }, settings);
    const records = checked.llm.kind === 'record' && !values.detach;
    input = await withStore(settings.dexHome, async (store) => {
      const now = Date.now();
      if (records) recording = { file, clock: now, world: await snapshotLayerWorld(store, checked.layer, now) };
      return ready(store, checked);
    });
    about = layerAbout(input);
  }
  // Loaded only once the input is known to be good: bad input answers without loading the SDK.
  const { driveRun, exitCodeFor } = require('../run/drive-run') as typeof DriveRun;
  const run = await driveRun(
    { kind: 'layer', idPrefix: layerWorkflowIdPrefix(input.layer.name), args: [input], about },
    settings,
    out,
    { detach: values.detach },
  );
  const { end } = run;
  if (recording && end && input.llm.kind === 'record') {
    const { file, world } = recording;
    const outcome = await withStore(settings.dexHome, (store) => layerOutcomeOf(store, run.workflowId, end));
    const started = (end.result as { startedAt?: string } | undefined)?.startedAt;
    const clock = started ? Date.parse(started) : recording.clock;
    writePlanSidecar(input.llm.path, { version: 1, kind: 'layer', file, workflowId: run.workflowId, clock, templates: input.templates ?? {}, world, end: outcome });
  }
  out.result(describeDrivenRun(PLAN_KINDS.layer.workflowType, run), { workflowId: run.workflowId, ...end, webUi: run.webUi });
  return end ? exitCodeFor(end) : 0;
}

/** Topics `dex messages import` names before it counts the rest. */
const TOPICS_SHOWN = 10;

/** `dex messages import FILE.jsonl`: topic messages into this host's store (no Temporal needed). */
export async function messagesCommand(argv: string[], out: Output): Promise<number> {
  const { positionals } = parseCommandArgs(argv, COMMAND_HELP.messages.options);
  const [sub, file, ...extra] = positionals;
  if (sub !== 'import' || !file || extra.length) throw new UsageError(`usage: ${usageOf('messages')}`);
  const messages = readTopicMessages(file);
  const topics = [...new Set(messages.map((m) => m.topic))].sort();
  const counts = await withStore(readSettings().dexHome, (store) => store.layers.importMessages(messages));
  // Names a few topics: a night's import may have thousands (`--json` lists them all).
  out.result(`imported ${plural(counts.added, 'message')} (${counts.skipped} already stored) on ${plural(topics.length, 'topic')}: ${someOf(topics, TOPICS_SHOWN)}`, { ...counts, topics });
  return 0;
}

/** `dex insights list [--topic KEY] [--run ID]`: stored insights, newest first. */
export async function insightsCommand(argv: string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, COMMAND_HELP.insights.options);
  if (positionals.length !== 1 || positionals[0] !== 'list') throw new UsageError(`usage: ${usageOf('insights')}`);
  const insights = await withStore(readSettings().dexHome, (store) => store.layers.listInsights({ topic: values.topic, layerRunId: values.run }));
  const human = insights.length
    ? insights
        .map((i) => {
          const numbers = `confidence ${i.confidence} · importance ${i.importance} · novelty ${i.novelty} · strength ${i.strength}`;
          return `${i.createdAt}  [${i.topic}] ${i.category}${i.unparsed ? ' (unparsed)' : ''}\n  ${i.content}\n  ${numbers} · run ${i.layerRunId}`;
        })
        .join('\n')
    : 'no insights yet';
  out.result(human, insights);
  return 0;
}
