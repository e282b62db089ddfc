/**
 * Which files can hold a match, decided from the pattern's literal tokens
 * before anything is parsed: the chunk FTS terms narrow the files, then an
 * exact, case-sensitive check of every literal runs on each file's text.
 *
 * A literal that occurs in a file as a whole token puts its identifier parts
 * among the FTS terms of the chunk holding it: the tokenizer splits the word
 * around the token into the same parts (a token starts and ends at a word
 * boundary or a separator), and indexes every part longer than one character.
 * That holds where the chunks cover every line and never cut a word
 * (`source_files.terms_complete`); other files are always candidates.
 *
 * An identifier's parts also stand one after the other, in order, among the
 * terms of any word that holds it as a token (`x.collect_buffer`,
 * `n-collect_buffer`, `$collect_buffer`): the word splits at the token's own
 * edges. So the FTS phrase of its parts (`"collect buffer"`) finds every
 * chunk holding the identifier, where each part alone may be in thousands of
 * files of a large repository (a 5M-line corpus: 5,081 files for `collect`
 * and `buffer` together, 488 for the phrase).
 */
import { identifierParts, tokenParts } from "../engine/tokenizer.ts";
import type { CandidateFile, TargetReader } from "../store/reader.ts";

/** Terms looked up at most; the rarest first (a common one selects little and costs most). */
const MAX_TERMS = 3;
/** A term after the first is looked up when it is in at most this many chunks, or … */
const CHEAP_TERM_CHUNKS = 2_000;
/** … in at most this many times the chunks of the rarest term. */
const CHEAP_TERM_RATIO = 8;

/** The FTS terms every file that holds all the literals as tokens has in its chunks. */
export function requiredTerms(literals: readonly string[]): string[] {
  return [...new Set(literals.flatMap((literal) => tokenParts(literal)))];
}

/** A literal that is one identifier, as the tokenizer reads a word (no `.`, `::` or `-`). */
const IDENTIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

/**
 * The FTS phrases of the identifier literals of several parts: their parts longer than one
 * character, in order, repeats kept (`foo_bar_foo_baz` → `foo bar foo baz`).
 */
export function requiredPhrases(literals: readonly string[]): string[] {
  const phrases = new Set<string>();
  for (const literal of literals) {
    if (!IDENTIFIER.test(literal)) continue;
    const parts = identifierParts(literal).filter((part) => part.length > 1);
    if (parts.length > 1) phrases.add(parts.join(" "));
  }
  return [...phrases];
}

/**
 * The files that may hold every literal: files whose chunks hold the phrases of its identifiers
 * (`requiredPhrases`), or else the rarest required term, narrowed by the next rarest terms while
 * they are cheap to read, plus files the terms do not cover; every file when the pattern has no
 * term. By path.
 */
export function candidateFiles(
  reader: TargetReader,
  terms: readonly string[],
  phrases: readonly string[] = [],
): CandidateFile[] {
  if (terms.length === 0) return reader.allFiles();
  const ranked = terms.map((term) => ({ term, chunks: reader.termDocuments(term) }))
    .sort((a, b) => a.chunks - b.chunks);
  let files: Set<number>;
  let narrowing = ranked.slice(1, MAX_TERMS);
  // A term after the first narrows while cheap to read: rare, or not much commoner than the
  // rarest. With phrases only a rare term does: the ratio to the rarest term says nothing of what
  // the phrases left (5M lines: 16-20 ms a common part).
  let cheapChunks = Math.max(CHEAP_TERM_CHUNKS, ranked[0].chunks * CHEAP_TERM_RATIO);
  if (ranked[0].chunks === 0) files = new Set<number>();
  else if (phrases.length > 0) {
    files = reader.filesWithTerm(phrases[0]);
    for (const phrase of phrases.slice(1, MAX_TERMS)) {
      if (files.size === 0) break;
      files = intersect(files, reader.filesWithTerm(phrase));
    }
    narrowing = ranked.slice(0, MAX_TERMS);
    cheapChunks = CHEAP_TERM_CHUNKS;
  } else files = reader.filesWithTerm(ranked[0].term);
  for (const { term, chunks } of narrowing) {
    if (files.size === 0 || chunks > cheapChunks) break;
    files = intersect(files, reader.filesWithTerm(term));
  }
  const candidates = new Set(files);
  for (const id of reader.filesWithoutCompleteTerms()) candidates.add(id);
  return reader.candidateFiles(candidates);
}

function intersect(files: Set<number>, holding: Set<number>): Set<number> {
  return new Set([...files].filter((id) => holding.has(id)));
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
