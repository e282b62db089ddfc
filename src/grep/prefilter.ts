/**
 * Which files can hold a match, decided from the pattern's literal tokens
 * before anything is parsed: an FTS5 trigram expression for the index, then an
 * exact, case-sensitive check of every literal on the file's text.
 */

/** Literals handed to the trigram index: the longest few (short ones select little). */
const INDEX_LITERALS = 3;
/** The trigram tokenizer cannot look up anything shorter. */
const MIN_TRIGRAM_LENGTH = 3;

/**
 * The `source_trigram MATCH` expression requiring the longest literals, or null
 * when no literal is long enough (every file of the language is a candidate).
 */
export function trigramExpression(literals: readonly string[]): string | null {
  const usable = [...new Set(literals)]
    .filter((literal) => [...literal].length >= MIN_TRIGRAM_LENGTH && !literal.includes("\0"))
    .sort((a, b) => b.length - a.length)
    .slice(0, INDEX_LITERALS);
  if (usable.length === 0) return null;
  return usable.map((literal) => `"${literal.replaceAll('"', '""')}"`).join(" AND ");
}

/** Whether a text holds every literal, exactly (the index is case-insensitive). */
export function containsAll(text: string, literals: readonly string[]): boolean {
  return literals.every((literal) => text.includes(literal));
}

/**
 * Whether a text holds the tokens in order (each may repeat earlier ones).
 * Every match does: pattern tokens are matched by distinct code tokens in
 * document order.
 */
export function containsInOrder(text: string, tokens: readonly string[]): boolean {
  let from = 0;
  for (const token of tokens) {
    const at = text.indexOf(token, from);
    if (at < 0) return false;
    from = at + token.length;
  }
  return true;
}
