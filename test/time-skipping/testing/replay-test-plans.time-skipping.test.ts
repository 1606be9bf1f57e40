// `dex replay-test` of layer and sheet recordings (docs/testing-your-flows.md#layers-and-sheets): each
// recorded as users record, on the dev server against a live model (the fake), then replayed on the
// time-skipping server; a changed prompt template makes the layer's replay name it.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedLayer, RecordedSheet } from '../../../client/requests/recorded-plans';
import { runDex } from '../../support/env/dex-cli';
import { useDexEnvironment } from '../../support/env/dex-environment';
import { answerLine, insightLine, layerDir, messagesFor, REFLECT_TEMPLATE } from '../../support/plans/layer-fixtures';

const testEnv = useDexEnvironment({
  server: 'dev',
  cassette: [insightLine('ops', 'reflect'), insightLine('design', 'reflect'), answerLine('greet', 'statement', 'Hello, ana!')],
});

const newFile = (name: string) => join(mkdtempSync(join(tmpdir(), 'dex-ts-replay-plan-')), name);

/** Records `args` against the fake model in the command environment `env`; the sidecar it wrote. */
async function record<T>(args: string[], cassette: string, env: NodeJS.ProcessEnv): Promise<T> {
  const run = await runDex([...args, '--llm', `record:${cassette}`], { env: { ...env, ANTHROPIC_BASE_URL: testEnv.fake.url, ANTHROPIC_API_KEY: 'test-key' } });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(readFileSync(`${cassette}.run.json`, 'utf8')) as T;
}

/** A sheet whose shell statement names a person and whose llm statement greets them. */
function greetingSheet(): string {
  const file = newFile('greet.sheet.yaml');
  writeFileSync(
    file,
    ['name: greet', 'statements:', '  - { id: who, run: shell, command: "echo ana", as: "@who" }', '  - { id: greet, run: llm, prompt: "Greet @who", as: "@greeting" }', ''].join('\n'),
  );
  return file;
}

describe('dex replay-test of layer and sheet recordings, on the time-skipping server', () => {
  let layer: { file: string; dir: string; cassette: string; recorded: RecordedLayer };
  let sheet: { file: string; cassette: string; recorded: RecordedSheet };

  beforeAll(async () => {
    const env = testEnv.cliEnv();
    const dir = layerDir({ name: 'nightly', topics: ['ops', 'design'], cassette: [] });
    const messages = join(dir.dir, 'messages.jsonl');
    writeFileSync(messages, messagesFor(['ops', 'design']).map((m) => JSON.stringify(m)).join('\n'));
    expect((await runDex(['messages', 'import', messages], { env })).code).toBe(0);
    const layerCassette = newFile('nightly.cassette.jsonl');
    layer = { ...dir, cassette: layerCassette, recorded: await record<RecordedLayer>(['layer', dir.file], layerCassette, env) };
    const sheetFile = greetingSheet();
    const sheetCassette = newFile('greet.cassette.jsonl');
    sheet = { file: sheetFile, cassette: sheetCassette, recorded: await record<RecordedSheet>(['sheet', sheetFile], sheetCassette, testEnv.cliEnv()) };
  }, 120_000);

  it('a layer recording carries what the replay needs: the layer, its world, its clock and its end', () => {
    const { recorded } = layer;
    expect(recorded).toMatchObject({ version: 1, kind: 'layer', file: layer.file, end: { state: 'completed', status: 'success' } });
    expect(recorded.world.messages).toHaveLength(6);
    expect(recorded.world.salience).toEqual({ ops: 3, design: 3 });
    expect(recorded.end.targets).toEqual([
      { id: 'ops', status: 'success' },
      { id: 'design', status: 'success' },
    ]);
    expect(recorded.end.insights.map((i) => i.key)).toEqual(['design/store', 'ops/store']);
    expect(recorded.end.prompts['ops/reflect']).toContain('Reflect on ops for layer nightly.');
  });

  it('replays a layer the same: statuses, insights and prompts', async () => {
    const started = Date.now();
    const run = await runDex(['replay-test', layer.cassette, '--json'], { env: testEnv.cliEnv() });
    const wallMs = Date.now() - started;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({ same: true, differences: [], replayed: { state: 'completed', status: 'success' } });
    expect(doc.replayed.insights).toEqual(layer.recorded.end.insights);
    expect(doc.replayed.prompts).toEqual(layer.recorded.end.prompts);
    console.log(`layer replay: ${(doc.simulatedMs / 1000).toFixed(1)} s simulated, ${(doc.wallMs / 1000).toFixed(1)} s in the run, ${(wallMs / 1000).toFixed(1)} s for the command`);
  });

  it('replays a layer recorded three days ago the same: its lookbacks count back from the recording clock', async () => {
    const ago = (iso: string) => new Date(Date.parse(iso) - 3 * 24 * 3_600_000).toISOString();
    let text = JSON.stringify(layer.recorded);
    for (const m of layer.recorded.world.messages) text = text.replaceAll(m.time, ago(m.time));
    const old = JSON.parse(text) as RecordedLayer;
    old.clock -= 3 * 24 * 3_600_000;
    const cassette = newFile('old.cassette.jsonl');
    writeFileSync(cassette, readFileSync(layer.cassette));
    writeFileSync(`${cassette}.run.json`, JSON.stringify(old));
    const run = await runDex(['replay-test', cassette, '--json'], { env: testEnv.cliEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).replayed.prompts['ops/reflect']).toContain(`[${old.world.messages[0].time}]`);
  });

  it('replays a sheet the same: statement statuses and values', async () => {
    expect(sheet.recorded.end).toEqual({
      state: 'completed',
      statements: [
        { id: 'who', status: 'success', value: 'ana' },
        { id: 'greet', status: 'success', value: 'Hello, ana!' },
      ],
    });
    const run = await runDex(['replay-test', sheet.cassette], { env: testEnv.cliEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/the replay ends as the recording sheet-greet-1 did: completed, 2 statements the same/);
    expect(run.stdout).toMatch(/took [\d.]+s of simulated time in [\d.]+s wall time/);
  });

  it('a sheet whose shell statement now says something else exits 1 naming the value', async () => {
    const changed = newFile('changed.cassette.jsonl');
    writeFileSync(changed, readFileSync(sheet.cassette));
    const edited = sheet.file.replace(/greet\.sheet\.yaml$/, 'bob.sheet.yaml');
    writeFileSync(edited, readFileSync(sheet.file, 'utf8').replace('echo ana', 'echo bob'));
    writeFileSync(`${changed}.run.json`, JSON.stringify({ ...sheet.recorded, file: edited }));
    const run = await runDex(['replay-test', changed], { env: testEnv.cliEnv() });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/statement who: value "bob", recorded "ana"/);
  });

  it('a changed prompt template makes the layer replay name the template and the prompts it changed', async () => {
    writeFileSync(join(layer.dir, 'prompts', 'reflect.md'), REFLECT_TEMPLATE.replace('Reflect on', 'Think hard about'));
    try {
      const run = await runDex(['replay-test', layer.cassette], { env: testEnv.cliEnv() });
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stdout).toMatch(/the replay differs from the recording layer-nightly-/);
      expect(run.stdout).toMatch(
        /prompt template prompts\/reflect\.md changed since the recording: 2 prompts differ \(design\/reflect, ops\/reflect; first at line 1: "Think hard about design.*", recorded "Reflect on design.*"\); the cassette's answers were given to the recorded prompts/,
      );
      // The answers come from the cassette all the same: the insights are as recorded.
      expect(run.stdout).not.toMatch(/insight /);
    } finally {
      writeFileSync(join(layer.dir, 'prompts', 'reflect.md'), REFLECT_TEMPLATE);
    }
  });

  it('--script on a layer recording, or a layer file gone, is one line, exit 2, nothing left behind', async () => {
    // A temp folder of these commands' own: other test files running beside this one make and remove theirs.
    const tmp = mkdtempSync(join(tmpdir(), 'dex-ts-replay-tmp-'));
    const env = { ...testEnv.cliEnv(), TMPDIR: tmp };
    const script = await runDex(['replay-test', layer.cassette, '--script', layer.file], { env });
    expect(script.code).toBe(2);
    expect(script.stderr.trim().split('\n')).toEqual([expect.stringMatching(/--script serves task, roadmap and sheet recordings; .* records a layer/)]);
    const gone = newFile('gone.cassette.jsonl');
    writeFileSync(gone, readFileSync(layer.cassette));
    writeFileSync(`${gone}.run.json`, JSON.stringify({ ...layer.recorded, file: join(layer.dir, 'missing.layer.yaml') }));
    const missing = await runDex(['replay-test', gone], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/layer file not found/);
    expect(readdirSync(tmp).filter((f) => f.startsWith('dex-'))).toEqual([]); // tsx keeps its cache there too
  });
});
