import { redactDeep, type Redactor } from '../core/safety/redaction';
import type { DexStore } from './dex-store';

/** Which arguments of each write hold text a run produced (the others are ids and keys). */
type Writes = Record<string, readonly number[]>;

const RUN_WRITES: Writes = { appendMessage: [3], putToolResult: [2], putArtifact: [2], recordModelReply: [2], recordPhase: [0] };
const LAYER_WRITES: Writes = { importMessages: [0], putInsight: [0] };
const MEMORY_WRITES: Writes = { putRunEntry: [1], addNote: [2] };

function redactingWrites<T extends object>(target: T, writes: Writes, redactor: Redactor): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      const textArgs = typeof property === 'string' ? writes[property] : undefined;
      if (!textArgs || typeof value !== 'function') return typeof value === 'function' ? value.bind(object) : value;
      return (...args: unknown[]) => value.apply(object, args.map((arg, i) => (textArgs.includes(i) ? redactDeep(arg, redactor) : arg)));
    },
  });
}

/**
 * The store every activity writes through (docs/security.md#redaction): transcripts, tool results,
 * verify and setup output, phase records, layer messages and insights, memory — all pass the one
 * redaction step before they are written, so neither `dex log` nor anything read back (the model's
 * next prompt included) holds a secret the run came across.
 */
export function redactingStore(store: DexStore, redactor: Redactor): DexStore {
  const layers = redactingWrites(store.layers, LAYER_WRITES, redactor);
  const memory = redactingWrites(store.memory, MEMORY_WRITES, redactor);
  const runs = redactingWrites(store, RUN_WRITES, redactor);
  return new Proxy(runs, {
    get(object, property, receiver) {
      if (property === 'layers') return layers;
      if (property === 'memory') return memory;
      return Reflect.get(object, property, receiver);
    },
  });
}
