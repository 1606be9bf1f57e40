/** `n` and `word`, singular for one and plural otherwise: `1 task`, `3 tasks`, `2 workflow runs`. `plural` is given where an `s` will not do. */
export const plural = (n: number, word: string, pluralWord = `${word}s`): string => `${n} ${n === 1 ? word : pluralWord}`;

/** The first `shown` of `items`, comma-separated, and how many more there are: `a, b, c (and 1,997 more)`. */
export function someOf(items: readonly string[], shown: number): string {
  const more = items.length - shown;
  return `${items.slice(0, shown).join(', ')}${more > 0 ? ` (and ${more.toLocaleString('en-US')} more)` : ''}`;
}
