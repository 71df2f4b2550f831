// Counts in controller messages: "1 node", "2 nodes", never "1 nodes" or "node(s)".

/** `n word` with the word in the plural unless n is 1 (regular plurals only: node, pod, slot). */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
