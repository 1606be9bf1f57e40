/**
 * Reading an insight out of a model answer, and the defaults a `graceful` store gives an
 * answer that holds none. Pure.
 */
import type { InsightNumbers, ParsedInsight } from './layer-types';

/** What an insight gets for a number the model did not give. */
export const DEFAULT_NUMBERS: InsightNumbers = {
  confidence: 0.5,
  importance: 0.5,
  novelty: 0.5,
  strengthAdjustment: 1,
  valence: { joy: null, concern: null, curiosity: null, warmth: null, tension: null },
};

const VALENCES = ['joy', 'concern', 'curiosity', 'warmth', 'tension'] as const;

/**
 * The insight in a model answer, looked for in order: the whole text as JSON, a fenced json
 * block, the span from the first `{` to the last `}`. It must be an object with a non-empty
 * string `content`; numbers are clamped to 0..1 (`strength_adjustment` to 0..10).
 */
export function parseInsight(text: string): ParsedInsight | null {
  const candidates = [text.trim()];
  for (const match of text.matchAll(/```(?:json)?[^\S\n]*\n([\s\S]*?)```/gi)) candidates.push(match[1].trim());
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first !== -1 && last > first) candidates.push(text.slice(first, last + 1));
  for (const candidate of candidates) {
    const insight = asInsight(candidate);
    if (insight) return insight;
  }
  return null;
}

/**
 * Why a node fails on an answer with no text (whitespace only, or `content: []`): there is no
 * insight in it to parse, keep or repair, and nothing to write (docs/layers.md#parse-modes-store_insight).
 */
export const EMPTY_ANSWER = "the model's answer is empty";

/** Whether a model answer has no text but whitespace. */
export function isEmptyAnswer(text: string): boolean {
  return text.trim() === '';
}

/** The insight a `graceful` store keeps for an answer that holds none: its text, default numbers. */
export function unparsedInsight(text: string): ParsedInsight {
  return { content: text.trim(), ...DEFAULT_NUMBERS };
}

function asInsight(candidate: string): ParsedInsight | null {
  if (!candidate.startsWith('{')) return null;
  let value: unknown;
  try {
    value = JSON.parse(candidate);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.content !== 'string' || !v.content.trim()) return null;
  const valence = (typeof v.valence === 'object' && v.valence !== null ? v.valence : {}) as Record<string, unknown>;
  return {
    content: v.content.trim(),
    confidence: unit(v.confidence, DEFAULT_NUMBERS.confidence),
    importance: unit(v.importance, DEFAULT_NUMBERS.importance),
    novelty: unit(v.novelty, DEFAULT_NUMBERS.novelty),
    strengthAdjustment: clamp(v.strength_adjustment, DEFAULT_NUMBERS.strengthAdjustment, 10),
    valence: Object.fromEntries(VALENCES.map((k) => [k, typeof valence[k] === 'number' ? unit(valence[k], 0) : null])) as InsightNumbers['valence'],
  };
}

function unit(value: unknown, fallback: number): number {
  return clamp(value, fallback, 1);
}

function clamp(value: unknown, fallback: number, max: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(0, value)) : fallback;
}
