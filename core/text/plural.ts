/** `n` and `word`, singular for one and plural otherwise: `1 task`, `3 tasks`, `2 workflow runs`. `plural` is given where an `s` will not do. */
export const plural = (n: number, word: string, pluralWord = `${word}s`): string => `${n} ${n === 1 ? word : pluralWord}`;
