import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isErrorLine, parseCassette } from '../../core/parsing/cassette';
import { costOf } from '../../core/run/pricing';
import type { LlmSpec } from '../../core/run/run-types';
import { ZERO_USAGE } from '../../core/run/usage';
import { InvalidInput } from '../../core/run/invalid-input';

/** Refuses (InvalidInput, naming `where`) a model no price is known for: its cost could not be counted. */
export function checkPriced(model: string, where: string): void {
  try {
    costOf(model, ZERO_USAGE);
  } catch {
    throw new InvalidInput(`${where}: no price is known for model "${model}", so its cost cannot be counted`);
  }
}

/**
 * Parses `--llm` (docs/interfaces.md#the-dex-command): `anthropic`, `anthropic:MODEL`, `replay:FILE` or `record:FILE`; absent, it is
 * `anthropic` when ANTHROPIC_API_KEY is set. A replay cassette is read and checked here, so a
 * malformed one stops the command before anything starts.
 */
export function parseLlmSpec(spec: string | undefined, env: NodeJS.ProcessEnv = process.env): LlmSpec {
  if (spec === undefined) {
    if (!env.ANTHROPIC_API_KEY) {
      throw new InvalidInput('no --llm given and ANTHROPIC_API_KEY is not set: set a key, or use --llm replay:FILE');
    }
    return { kind: 'anthropic' };
  }
  if (spec === 'anthropic' || spec.startsWith('anthropic:')) {
    if (!env.ANTHROPIC_API_KEY) throw new InvalidInput(`--llm ${spec} needs ANTHROPIC_API_KEY to be set`);
    const model = spec.slice('anthropic:'.length) || undefined;
    if (spec.startsWith('anthropic:')) {
      if (!model) throw new InvalidInput('--llm anthropic:MODEL needs a model id after the colon');
      checkPriced(model, '--llm');
    }
    return model ? { kind: 'anthropic', model } : { kind: 'anthropic' };
  }
  if (spec.startsWith('replay:')) {
    const path = resolve(spec.slice('replay:'.length));
    if (!spec.slice('replay:'.length)) throw new InvalidInput('--llm replay:FILE needs a cassette file');
    if (!existsSync(path)) throw new InvalidInput(`replay cassette not found: ${path}`);
    const lines = parseCassette(readFileSync(path, 'utf8'), path);
    if (lines.length === 0) throw new InvalidInput(`replay cassette ${path} has no lines`);
    for (const l of lines) if (!isErrorLine(l)) checkPriced(l.response.model ?? '', `${path}:${l.line}: response.model`);
    return { kind: 'replay', path };
  }
  if (spec.startsWith('record:')) return recordSpec(spec.slice('record:'.length), env);
  throw new InvalidInput(`unknown --llm "${spec}": use anthropic, anthropic:MODEL, replay:FILE or record:FILE`);
}

/**
 * `record:FILE` (docs/interfaces.md#recording-a-run): the live model, each answer appended to a
 * new cassette. A file that already has lines is refused: a recording's lines are found by their
 * call keys, which a run on another server or store could repeat.
 */
function recordSpec(file: string, env: NodeJS.ProcessEnv): LlmSpec {
  if (!file) throw new InvalidInput('--llm record:FILE needs a cassette file to write');
  if (!env.ANTHROPIC_API_KEY) throw new InvalidInput(`--llm record:${file} needs ANTHROPIC_API_KEY to be set`);
  const path = resolve(file);
  if (!existsSync(dirname(path)) || !statSync(dirname(path)).isDirectory()) throw new InvalidInput(`record cassette's folder not found: ${dirname(path)}`);
  if (existsSync(path) && statSync(path).size > 0) throw new InvalidInput(`record cassette ${path} already has lines: record to a new file`);
  return { kind: 'record', path };
}
