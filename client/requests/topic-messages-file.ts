import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { TopicMessage } from '../../core/layer/layer-context';
import { InvalidInput } from '../../core/run/invalid-input';

const FIELDS = ['topic', 'channel', 'author', 'text', 'time'] as const;

/**
 * Parses a JSON Lines file of messages (`topic`, `channel`, `author`, `text`, `time`, optional
 * `id`); a bad line is an InvalidInput naming it. A message without an id gets one from its
 * content, so importing the same file twice stores nothing twice.
 */
export function parseTopicMessages(text: string, source: string): TopicMessage[] {
  const messages: TopicMessage[] = [];
  text.split('\n').forEach((raw, index) => {
    if (!raw.trim()) return;
    const where = `${source}:${index + 1}`;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(raw) as Record<string, unknown>;
    } catch (err) {
      throw new InvalidInput(`${where}: not valid JSON (${(err as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidInput(`${where}: expected a JSON object`);
    for (const field of FIELDS) {
      if (typeof value[field] !== 'string' || (field !== 'text' && !(value[field] as string).trim())) {
        throw new InvalidInput(`${where}: "${field}" must be a${field === 'text' ? '' : ' non-empty'} string`);
      }
    }
    const time = Date.parse(value.time as string);
    if (Number.isNaN(time)) throw new InvalidInput(`${where}: "time" is not a date and time (use ISO 8601, e.g. 2025-01-31T18:00:00Z)`);
    const m = { topic: value.topic as string, channel: value.channel as string, author: value.author as string, text: value.text as string, time: new Date(time).toISOString() };
    const id = typeof value.id === 'string' && value.id ? value.id : createHash('sha256').update(JSON.stringify(m)).digest('hex').slice(0, 20);
    messages.push({ id, ...m });
  });
  return messages;
}

/** Reads and parses the JSON Lines file of messages at `file` (`dex messages import FILE`); a missing file is an InvalidInput. */
export function readTopicMessages(file: string): TopicMessage[] {
  const path = resolve(file);
  if (!existsSync(path)) throw new InvalidInput(`messages file not found: ${path}`);
  return parseTopicMessages(readFileSync(path, 'utf8'), path);
}
