import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CassetteLine } from '../../../core/parsing/cassette';
import type { TopicMessage } from '../../../core/layer/layer-context';
import { TEST_MODEL, toJsonl } from '../model/cassette-builder';

let nextLine = 1;

/** The reflection prompt the test layers use. */
export const REFLECT_TEMPLATE = 'Reflect on {{topic}} for layer {{layer}}.\n\nMessages:\n{{messages}}\n\nEarlier insights:\n{{insights}}\n';

/** A model answer for `topic` at node `phase`; usage differs per line so a wrong sum shows. */
export function answerLine(topic: string, phase: string, text: string): CassetteLine {
  const n = nextLine++;
  return {
    line: n,
    task: topic,
    phase,
    response: {
      id: `msg_layer_${n}`,
      type: 'message',
      role: 'assistant',
      model: TEST_MODEL,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 200 + 7 * n, output_tokens: 30 + n, cache_creation_input_tokens: 0, cache_read_input_tokens: n % 2 ? 50 : 0 },
    },
  };
}

/** An answer that holds the insight JSON for `topic`. */
export function insightLine(topic: string, phase: string): CassetteLine {
  const insight = { content: `${topic} keeps coming back to deadlines`, confidence: 0.8, importance: 0.7, novelty: 0.4, strength_adjustment: 1.5, valence: { concern: 0.6, curiosity: 0.3 } };
  return answerLine(topic, phase, `Here is what I see.\n\n\`\`\`json\n${JSON.stringify(insight)}\n\`\`\``);
}

/** A folder holding a layer file over `topics` (reflect → store), its template and the cassette. */
export function layerDir(opts: { name: string; topics: string[]; parse?: string; cassette: CassetteLine[]; extraYaml?: string; salience?: string; head?: string }): {
  dir: string;
  file: string;
  cassette: string;
} {
  const dir = mkdtempSync(join(tmpdir(), 'dex-layer-'));
  mkdirSync(join(dir, 'prompts'));
  writeFileSync(join(dir, 'prompts', 'reflect.md'), REFLECT_TEMPLATE);
  const file = join(dir, `${opts.name}.layer.yaml`);
  writeFileSync(
    file,
    `name: ${opts.name}
targets: [${opts.topics.join(', ')}]
${opts.salience ?? ''}
${opts.head ?? ''}
nodes:
  - name: fetch
    type: fetch_messages
    params: { lookback_hours: 48, limit_per_channel: 50 }
  - name: prior
    type: fetch_insights
    params: { max_per_topic: 3 }
  - name: reflect
    type: llm_call
    params: { prompt_template: prompts/reflect.md, max_tokens: 400 }
  - name: store
    type: store_insight
    params: { category: reflection${opts.parse ? `, parse: ${opts.parse}` : ''} }
${opts.extraYaml ?? ''}`,
  );
  const cassette = join(dir, 'answers.jsonl');
  writeFileSync(cassette, toJsonl(opts.cassette));
  return { dir, file, cassette };
}

/** `count` messages on each topic, the newest an hour before `now`. */
export function messagesFor(topics: string[], count = 3, now = Date.now()): TopicMessage[] {
  return topics.flatMap((topic) =>
    Array.from({ length: count }, (_, i) => ({
      id: `${topic}-m${i}`,
      topic,
      channel: i % 2 ? 'general' : 'planning',
      author: i % 2 ? 'ana' : 'ben',
      text: `message ${i} about ${topic}: the deadline moved again`,
      time: new Date(now - (count - i) * 3_600_000).toISOString(),
    })),
  );
}
