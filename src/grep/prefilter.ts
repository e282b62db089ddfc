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
 */
import { tokenParts } from "../engine/tokenizer.ts";
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

/**
 * The files that may hold every literal: files whose chunks hold the rarest
 * required terms, plus files the terms do not cover; every file when the
 * pattern has no term. By path.
 */
export function candidateFiles(reader: TargetReader, terms: readonly string[]): CandidateFile[] {
  if (terms.length === 0) return reader.allFiles();
  const ranked = terms.map((term) => ({ term, chunks: reader.termDocuments(term) }))
    .sort((a, b) => a.chunks - b.chunks);
  // The rarest term's files, narrowed by the next rarest while they are cheap to read.
  let files = ranked[0].chunks === 0 ? new Set<number>() : reader.filesWithTerm(ranked[0].term);
  for (const { term, chunks } of ranked.slice(1, MAX_TERMS)) {
    const cheap = chunks <= CHEAP_TERM_CHUNKS || chunks <= ranked[0].chunks * CHEAP_TERM_RATIO;
    if (files.size === 0 || !cheap) break;
    const holding = reader.filesWithTerm(term);
    files = new Set([...files].filter((id) => holding.has(id)));
  }
  const candidates = new Set(files);
  for (const id of reader.filesWithoutCompleteTerms()) candidates.add(id);
  return reader.candidateFiles(candidates);
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
