/**
 * The code-aware tokenizer shared by indexing and querying: one tokenizer, so a
 * query term matches exactly what indexing stored.
 *
 * Every identifier yields its compact lower-case form (`parseConfigFile`,
 * `parse_config_file` and `parse-config-file` all give `parseconfigfile`) and,
 * when it has several parts, each part (`parse`, `config`, `file`). Dotted and
 * `::` paths yield the whole path compacted plus every segment. Digits split
 * from letters. Short identifiers such as `os`, `id` and `io` are kept; single
 * characters are not.
 */

const WORD = /[\p{L}_$][\p{L}\p{N}_$]*(?:(?:\.|::|-)[\p{L}_$][\p{L}\p{N}_$]*)*|\p{N}+/gu;
const PART = /\p{Lu}+(?![\p{Ll}])|\p{Lu}?\p{Ll}+|\p{Lu}|\p{N}+|[\p{L}]+/gu;

/** Splits one identifier into its lower-case parts: `HTTPServer2Go` → `http`, `server`, `2`, `go`. */
export function identifierParts(word: string): string[] {
  const parts: string[] = [];
  for (const segment of word.split(/[._$:\-]+/)) {
    for (const match of segment.matchAll(PART)) parts.push(match[0].toLowerCase());
  }
  return parts;
}

/** Compact lower-case form of an identifier or path: separators removed. */
export function compactIdentifier(word: string): string {
  return word.replace(/[._$:\-]+/g, "").toLowerCase();
}

/** All index terms of a piece of text, in order of appearance (with repeats). */
export function codeTerms(text: string): string[] {
  const terms: string[] = [];
  const words = text.match(WORD);
  if (!words) return terms;
  for (const word of words) {
    const own = wordTerms(word);
    for (let i = 0; i < own.length; i++) terms.push(own[i]);
  }
  return terms;
}

/** Words seen recently and their terms: source text repeats a few thousand words. */
const WORD_TERMS = new Map<string, readonly string[]>();
const WORD_TERMS_MAX = 50_000;

function wordTerms(word: string): readonly string[] {
  let terms = WORD_TERMS.get(word);
  if (terms === undefined) {
    const fresh: string[] = [];
    pushWordTerms(word, fresh);
    if (WORD_TERMS.size >= WORD_TERMS_MAX) WORD_TERMS.clear();
    WORD_TERMS.set(word, terms = fresh);
  }
  return terms;
}

function pushWordTerms(word: string, terms: string[]): void {
  const compact = compactIdentifier(word);
  if (compact.length > 1 || /^\p{N}$/u.test(compact)) terms.push(compact);
  const parts = identifierParts(word);
  if (parts.length < 2) return;
  for (const part of parts) {
    if (part.length > 1 && part !== compact) terms.push(part);
  }
  // Dotted paths also index each segment's compact form (`os.path` → `path`).
  if (/[.:]/.test(word)) {
    const partSet = new Set(parts);
    for (const segment of word.split(/\.|::/)) {
      const seg = compactIdentifier(segment);
      if (seg.length > 1 && seg !== compact && !partSet.has(seg)) terms.push(seg);
    }
  }
}

/**
 * The identifier parts longer than one character of every word of a text:
 * terms that `codeTerms` yields for any text holding this one as whole tokens
 * (a word around a token splits into the token's own parts, and `codeTerms`
 * keeps every part of a word, or the word itself when it has one part).
 */
export function tokenParts(text: string): string[] {
  const parts = new Set<string>();
  for (const match of text.matchAll(WORD)) {
    for (const part of identifierParts(match[0])) if (part.length > 1) parts.add(part);
  }
  return [...parts];
}

/** Words that carry no signal in a natural-language query. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have how i if in " +
    "into is it its me my no not of on or our so some such than that the their them then there " +
    "these they this those to was we were what when where which while who why will with would you your " +
    "should shall may might also just only very any all each use used using get gets like want"
  ).split(" "),
);

/** Distinct query terms in first-seen order, stop words removed, at most `max`. */
export function queryTerms(text: string, max = 64): string[] {
  const seen = new Set<string>();
  for (const term of codeTerms(text)) {
    if (STOP_WORDS.has(term) || seen.has(term)) continue;
    seen.add(term);
    if (seen.size >= max) break;
  }
  return [...seen];
}

/** An FTS5 MATCH expression that ORs quoted terms; `null` when nothing is searchable. */
export function ftsMatchExpression(terms: readonly string[]): string | null {
  if (terms.length === 0) return null;
  return terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(" OR ");
}
