/**
 * A check on tokens, before anything is parsed, that a piece of Python text
 * cannot hold a match of a pattern: it answers "maybe" for every piece that
 * holds one (it accepts more than the matcher), and "no" for most pieces that
 * hold the pattern's literals without a match (`isinstance(a, b)` for
 * `isinstance($A, $A)`, `lambda x: x + 1` for `lambda $X: $X`), which the parse
 * plan then leaves out (`plan.ts`).
 *
 * The pattern is read as its leaves in order: tokens (a terminal's text) and
 * one-node metavariables. A match's leaves from its first token on are the
 * pattern's, with these between them, all of which the check allows:
 *
 * - before a pattern token, unnamed tokens of the code the matcher skipped
 *   (the grammar's anonymous kinds: keywords, operators, punctuation);
 * - for a metavariable, one node: a run of tokens whose brackets pair up
 *   (a node holds both brackets of a pair), not empty for `$NAME` (a named
 *   node of a tree without errors never is); a name bound
 *   again takes the same tokens (the matcher's `sameTokens` compares named
 *   leaves by text and others by kind, comments included; here comments are
 *   left out and any string equals any string);
 * - after a pattern node's last child, whatever children the code node has
 *   beyond the pattern's (smart strictness): any tokens.
 *
 * Comments, blank space and line breaks are not tokens (the matcher skips
 * comments; Python's line breaks and indents are hidden); a line continuation
 * is one (it is a named node of the tree). A string is one token, so a match
 * inside an f-string's interpolation is never ruled out: a piece whose
 * f-strings hold the first token is always "maybe". The token rules follow
 * the tree's tokens (an identifier, a number, an operator by longest match, a
 * bracket), so every token of the tree outside strings starts and ends where
 * one of these does. Patterns outside this reading (a `$$$` list, a block, a
 * first leaf that is not a token, a token that is not one of these) get no
 * check.
 */
import type { Language } from "web-tree-sitter";
import type { CompiledPattern, PatternNode } from "./pattern.ts";

const WORD = 1;
const NUMBER = 2;
const STRING = 3;
/** A string with a prefix holding `f` or `t`: code may be inside it. */
const FSTRING = 4;
const OPERATOR = 5;
const OPEN = 6;
const CLOSE = 7;
/** A backslash ending a line: the tree's `line_continuation`. */
const CONTINUATION = 8;

/** Python's operators and delimiters of more than one character, longest first. */
const OPERATORS = [
  "**=",
  "//=",
  ">>=",
  "<<=",
  "...",
  "->",
  ":=",
  "**",
  "//",
  ">>",
  "<<",
  "<=",
  ">=",
  "==",
  "!=",
  "<>",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
  "@=",
];

/** The operators of `OPERATORS` by their first character. */
const OPERATORS_BY_FIRST = new Map<number, string[]>();
for (const operator of OPERATORS) {
  const first = operator.charCodeAt(0);
  OPERATORS_BY_FIRST.set(first, [...(OPERATORS_BY_FIRST.get(first) ?? []), operator]);
}

/** The length of the operator at `at`: the longest of `OPERATORS` there, else one character. */
function operatorLength(text: string, at: number, to: number): number {
  const candidates = OPERATORS_BY_FIRST.get(text.charCodeAt(at));
  if (candidates) {
    for (const operator of candidates) {
      if (at + operator.length <= to && text.startsWith(operator, at)) return operator.length;
    }
  }
  return 1;
}

/** Steps of the token matcher per piece before it gives up and answers "maybe". */
const STEP_LIMIT = 50_000;

/** Tokens of a piece of text: kind, start and end offsets, and each bracket's partner. */
export interface Tokens {
  count: number;
  kinds: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;
  /** The index of a bracket's partner, -1 for an unpaired one and for other tokens. */
  partners: Int32Array;
}

/** A partner not known yet: the closing bracket is not lexed. */
const UNKNOWN = -2;

/**
 * Python tokens of `from..to`, lexed as they are asked for (one stream is
 * reused for every piece: the check runs once for each of thousands of them).
 */
class TokenStream implements Tokens {
  text = "";
  to = 0;
  /** Where lexing goes on. */
  at = 0;
  count = 0;
  kinds = new Uint8Array(256);
  starts = new Int32Array(256);
  ends = new Int32Array(256);
  partners = new Int32Array(256);
  /** Opening brackets not closed yet. */
  readonly #open: number[] = [];

  reset(text: string, from: number, to: number): this {
    this.text = text;
    this.at = from;
    this.to = to;
    this.count = 0;
    this.#open.length = 0;
    return this;
  }

  /** Whether token `i` exists (lexing up to it). */
  has(i: number): boolean {
    while (this.count <= i && this.#next());
    return i < this.count;
  }

  /** The partner of bracket `i` (lexing up to it), -1 when it has none. */
  partner(i: number): number {
    while (this.partners[i] === UNKNOWN && this.#next());
    return this.partners[i] === UNKNOWN ? -1 : this.partners[i];
  }

  /** Lexes to the end. */
  all(): this {
    while (this.#next());
    for (let i = 0; i < this.count; i++) if (this.partners[i] === UNKNOWN) this.partners[i] = -1;
    return this;
  }

  #push(kind: number, start: number, end: number): void {
    const i = this.count;
    if (i === this.kinds.length) {
      const grow = <T extends Uint8Array | Int32Array>(from: T, to: T): T => {
        to.set(from);
        return to;
      };
      this.kinds = grow(this.kinds, new Uint8Array(i * 2));
      this.starts = grow(this.starts, new Int32Array(i * 2));
      this.ends = grow(this.ends, new Int32Array(i * 2));
      this.partners = grow(this.partners, new Int32Array(i * 2));
    }
    this.kinds[i] = kind;
    this.starts[i] = start;
    this.ends[i] = end;
    this.partners[i] = -1;
    if (kind === OPEN) {
      this.partners[i] = UNKNOWN;
      this.#open.push(i);
    } else if (kind === CLOSE && this.#open.length > 0) {
      const j = this.#open.pop()!;
      if (pairs(this.text.charCodeAt(this.starts[j]), this.text.charCodeAt(start))) {
        this.partners[i] = j;
        this.partners[j] = i;
      } else {
        // Mismatched brackets: every bracket open so far stays unpaired (no span crosses them).
        this.partners[j] = -1;
        for (const k of this.#open) this.partners[k] = -1;
        this.#open.length = 0;
      }
    }
    this.count++;
  }

  /** Lexes one more token; false at the end. */
  #next(): boolean {
    const { text, to } = this;
    let at = this.at;
    for (;;) {
      if (at >= to) {
        this.at = at;
        for (const k of this.#open) this.partners[k] = -1;
        this.#open.length = 0;
        return false;
      }
      const c = text.charCodeAt(at);
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12) {
        at++;
      } else if (c === 35) { // #
        const end = text.indexOf("\n", at);
        at = end < 0 || end > to ? to : end;
      } else {
        break;
      }
    }
    const c = text.charCodeAt(at);
    let end: number;
    if (isWordStart(c)) {
      end = at + 1;
      while (end < to && isWordPart(text.charCodeAt(end))) end++;
      const quote = end < to ? text.charCodeAt(end) : 0;
      if ((quote === 34 || quote === 39) && isStringPrefix(text, at, end)) {
        const close = stringEnd(text, end, to);
        this.#push(isFormatPrefix(text, at, end) ? FSTRING : STRING, at, close);
        end = close;
      } else {
        this.#push(WORD, at, end);
      }
    } else if (c === 34 || c === 39) {
      end = stringEnd(text, at, to);
      this.#push(STRING, at, end);
    } else if (isDigit(c) || (c === 46 && at + 1 < to && isDigit(text.charCodeAt(at + 1)))) {
      end = numberEnd(text, at, to);
      this.#push(NUMBER, at, end);
    } else if (c === 40 || c === 91 || c === 123) { // ( [ {
      end = at + 1;
      this.#push(OPEN, at, end);
    } else if (c === 41 || c === 93 || c === 125) { // ) ] }
      end = at + 1;
      this.#push(CLOSE, at, end);
    } else if (c === 92 && lineBreakAt(text, at + 1, to)) { // \ at a line's end
      end = text.charCodeAt(at + 1) === 13 ? at + 3 : at + 2;
      this.#push(CONTINUATION, at, end);
    } else {
      end = at + operatorLength(text, at, to);
      this.#push(OPERATOR, at, end);
    }
    this.at = end;
    return true;
  }
}

/** Lexes Python text `from..to` (a piece that starts outside any string). */
export function lexPython(text: string, from: number, to: number): Tokens {
  const stream = new TokenStream().reset(text, from, to).all();
  const { count } = stream;
  return {
    count,
    kinds: stream.kinds.slice(0, count),
    starts: stream.starts.slice(0, count),
    ends: stream.ends.slice(0, count),
    partners: stream.partners.slice(0, count),
  };
}

/** The stream every check lexes into (checks do not nest). */
const STREAM = new TokenStream();

/** Characters where code may stop being code: a comment, a string. */
const SPECIAL = /[#'"]/g;

function pairs(open: number, close: number): boolean {
  return (open === 40 && close === 41) || (open === 91 && close === 93) ||
    (open === 123 && close === 125);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isWordStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 128;
}

function isWordPart(c: number): boolean {
  return isWordStart(c) || isDigit(c);
}

function isFormatPrefix(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i) | 32;
    if (c === 102 || c === 116) return true; // f, t
  }
  return false;
}

function isStringPrefix(text: string, from: number, to: number): boolean {
  if (to - from > 2) return false;
  for (let i = from; i < to; i++) {
    if (!"rRbBuUfFtT".includes(text[i])) return false;
  }
  return true;
}

function lineBreakAt(text: string, at: number, to: number): boolean {
  if (at >= to) return false;
  const c = text.charCodeAt(at);
  return c === 10 || (c === 13 && at + 1 < to && text.charCodeAt(at + 1) === 10);
}

/** Where a string starting with its quote at `at` ends (unterminated: at the line's or piece's end). */
function stringEnd(text: string, at: number, to: number): number {
  const quote = text[at];
  const triple = text.charAt(at + 1) === quote && text.charAt(at + 2) === quote;
  const closer = triple ? quote + quote + quote : quote;
  let from = at + closer.length;
  for (;;) {
    let close = text.indexOf(closer, from);
    if (close < 0 || close >= to) close = to;
    if (!triple) {
      // A one-line string ends at a line break no backslash escapes.
      const lineBreak = text.indexOf("\n", from);
      if (lineBreak >= 0 && lineBreak < close) {
        const before = text.charCodeAt(lineBreak - 1) === 13 ? lineBreak - 1 : lineBreak;
        if (!escaped(text, before, from)) return lineBreak;
        from = lineBreak + 1;
        continue;
      }
    }
    if (close >= to) return to;
    if (!escaped(text, close, from)) return Math.min(close + closer.length, to);
    from = close + 1;
  }
}

/** Whether an odd number of backslashes stands right before `at` (after `from`). */
function escaped(text: string, at: number, from: number): boolean {
  let count = 0;
  for (let i = at - 1; i >= from && text.charCodeAt(i) === 92; i--) count++;
  return count % 2 === 1;
}

/** The end of a number: digits, a fraction, an exponent, a suffix; or a prefixed integer. */
function numberEnd(text: string, at: number, to: number): number {
  let i = at;
  const next = text.charCodeAt(at + 1) | 32;
  if (text.charCodeAt(at) === 48 && (next === 120 || next === 111 || next === 98)) {
    i += 2;
    while (i < to && /[0-9a-fA-F_]/.test(text[i])) i++;
    return i;
  }
  const digits = () => {
    while (i < to && (isDigit(text.charCodeAt(i)) || text.charCodeAt(i) === 95)) i++;
  };
  digits();
  if (i < to && text.charCodeAt(i) === 46) {
    i++;
    digits();
  }
  if (i < to && (text.charCodeAt(i) | 32) === 101) {
    let j = i + 1;
    if (j < to && (text.charCodeAt(j) === 43 || text.charCodeAt(j) === 45)) j++;
    if (j < to && isDigit(text.charCodeAt(j))) {
      i = j;
      digits();
    }
  }
  if (i < to && /[jJlL]/.test(text[i])) i++;
  return i;
}

type Item =
  | { type: "token"; text: string }
  | { type: "node"; name: string | null; named: boolean }
  | { type: "trail" };

/** The check of one pattern, or null when the pattern is outside what it reads. */
export class LexicalCheck {
  readonly #items: Item[];
  readonly #first: string;
  /** The first token is a word: its occurrences are found without lexing what lies before. */
  readonly #firstIsWord: boolean;
  /** Texts of the grammar's anonymous tokens: what the matcher may skip before a token. */
  readonly #skippable: Set<string>;
  /** First characters (ASCII) of the anonymous tokens' texts. */
  readonly #skippableFirst = new Uint8Array(128);

  private constructor(items: Item[], skippable: Set<string>) {
    this.#items = items;
    this.#first = (items[0] as { text: string }).text;
    this.#firstIsWord = /^[A-Za-z_][A-Za-z0-9_]*$/.test(this.#first);
    this.#skippable = skippable;
    for (const name of skippable) {
      const first = name.charCodeAt(0);
      if (first < 128) this.#skippableFirst[first] = 1;
    }
  }

  /** The check for a compiled Python pattern, or null when it does not apply. */
  static of(compiled: CompiledPattern, language: Language): LexicalCheck | null {
    if (compiled.language !== "python") return null;
    const items: Item[] = [];
    if (!flatten(compiled.root, items, true)) return null;
    while (items.length > 0 && items[items.length - 1].type === "trail") items.pop();
    if (items.length === 0 || items[0].type !== "token") return null;
    const skippable = new Set<string>();
    for (let id = 0; id < language.nodeTypeCount; id++) {
      if (language.nodeTypeIsNamed(id) || !language.nodeTypeIsVisible(id)) continue;
      const name = language.nodeTypeForId(id);
      if (name) skippable.add(name);
    }
    return new LexicalCheck(items, skippable);
  }

  /** False when no match can lie in `from..to` of the text (a piece starting outside strings). */
  mayMatch(text: string, from: number, to: number): boolean {
    const state = { steps: 0 };
    if (!this.#firstIsWord) {
      // Every token of the piece, each spelling the first token an anchor.
      const stream = STREAM.reset(text, from, to);
      for (let i = 0; stream.has(i); i++) {
        const kind = stream.kinds[i];
        if (kind === FSTRING && this.#inside(text, stream.starts[i], stream.ends[i])) return true;
        if (!isCode(kind) || !tokenIs(text, stream, i, this.#first)) continue;
        if (this.#match(text, stream, 1, i + 1, new Map(), state)) return true;
        if (state.steps > STEP_LIMIT) return true;
      }
      return false;
    }
    // A word: its occurrences outside comments and strings, as whole tokens, are the anchors;
    // only the tokens after each are lexed.
    const first = this.#first;
    /** Text from `code` up to `special` (the next `#` or quote) is code. */
    let code = from;
    let special = -1;
    for (let at = text.indexOf(first, from); at >= 0; at = text.indexOf(first, at + 1)) {
      const end = at + first.length;
      if (end > to) break;
      // Inside the comment or string skipped last.
      if (at < code) continue;
      let inCode = true;
      for (;;) {
        if (special < code) {
          SPECIAL.lastIndex = code;
          const found = SPECIAL.exec(text);
          special = found && found.index < to ? found.index : to;
        }
        // A word holds no `#` or quote: a special before its end is before its start.
        if (special >= end) break;
        let close: number;
        if (text.charCodeAt(special) === 35) {
          const lineEnd = text.indexOf("\n", special);
          close = lineEnd < 0 || lineEnd > to ? to : lineEnd;
        } else {
          let start = special;
          while (start > code && isWordPart(text.charCodeAt(start - 1))) start--;
          close = stringEnd(text, special, to);
          // Code inside an f-string's braces is never ruled out.
          if (
            at < close && start < special && isStringPrefix(text, start, special) &&
            isFormatPrefix(text, start, special)
          ) {
            return true;
          }
        }
        code = close;
        if (at < close) {
          inCode = false;
          break;
        }
      }
      if (!inCode || !this.#wholeWord(text, at, end, to)) continue;
      if (this.#match(text, STREAM.reset(text, end, to), 1, 0, new Map(), state)) return true;
      if (state.steps > STEP_LIMIT) return true;
    }
    return false;
  }

  /** Whether the first token's text lies in `from..to`. */
  #inside(text: string, from: number, to: number): boolean {
    const at = text.indexOf(this.#first, from);
    return at >= 0 && at + this.#first.length <= to;
  }

  /** Whether a word's occurrence in code is a whole token (a word or a number's end before it). */
  #wholeWord(text: string, at: number, end: number, to: number): boolean {
    if (end < to) {
      const next = text.charCodeAt(end);
      if (isWordPart(next)) return false;
      // A string's prefix (`f"…"`) is no word of its own.
      if ((next === 34 || next === 39) && isStringPrefix(text, at, end)) return false;
    }
    if (at === 0 || !isWordPart(text.charCodeAt(at - 1))) return true;
    // A word right after a number (`1if x else y`) is a token of its own.
    let start = at - 1;
    while (start > 0 && isWordPart(text.charCodeAt(start - 1))) start--;
    return isDigit(text.charCodeAt(start));
  }

  /** Whether items `k..` can match from token `p` on (bindings so far in `bound`). */
  #match(
    text: string,
    tokens: TokenStream,
    k: number,
    p: number,
    bound: Map<string, [number, number]>,
    state: { steps: number },
  ): boolean {
    if (++state.steps > STEP_LIMIT) return true;
    if (k === this.#items.length) return true;
    const item = this.#items[k];
    if (item.type === "token") {
      for (let q = p; tokens.has(q); q++) {
        if (
          isCode(tokens.kinds[q]) && tokenIs(text, tokens, q, item.text) &&
          this.#match(text, tokens, k + 1, q + 1, bound, state)
        ) {
          return true;
        }
        if (!this.#canSkip(text, tokens, q)) return false;
      }
      return false;
    }
    if (item.type === "trail") {
      for (let q = p; q === p || tokens.has(q - 1); q++) {
        if (this.#match(text, tokens, k + 1, q, bound, state)) return true;
      }
      return false;
    }
    const previous = item.name === null ? undefined : bound.get(item.name);
    if (previous) {
      const length = previous[1] - previous[0];
      return (length === 0 || tokens.has(p + length - 1)) &&
        sameRun(text, tokens, previous[0], p, length) &&
        this.#match(text, tokens, k + 1, p + length, bound, state);
    }
    // One node: every run from `p` whose brackets pair up, shortest first. A named node of a
    // tree without errors is never empty (grammars have no rule matching nothing).
    for (let end = p;;) {
      if (end > p || !item.named) {
        if (item.name !== null) bound.set(item.name, [p, end]);
        if (this.#match(text, tokens, k + 1, end, bound, state)) return true;
      }
      if (!tokens.has(end) || tokens.kinds[end] === CLOSE) break;
      if (tokens.kinds[end] === OPEN) {
        const partner = tokens.partner(end);
        if (partner < 0) break;
        end = partner + 1;
      } else {
        end++;
      }
    }
    if (item.name !== null) bound.delete(item.name);
    return false;
  }

  /** Whether token `q` may be an unnamed token of the tree (which the matcher skips). */
  #canSkip(text: string, tokens: TokenStream, q: number): boolean {
    const kind = tokens.kinds[q];
    if (kind === STRING || kind === FSTRING || kind === NUMBER || kind === CONTINUATION) {
      return false;
    }
    const start = tokens.starts[q];
    const first = text.charCodeAt(start);
    // Most tokens here are names no anonymous token starts like: no slice for them.
    if (first < 128 && !this.#skippableFirst[first]) return false;
    return this.#skippable.has(text.slice(start, tokens.ends[q]));
  }
}

/**
 * The pattern's leaves in order (with a `trail` after each node but the root),
 * or false when a leaf is outside what the check reads.
 */
function flatten(node: PatternNode, items: Item[], root: boolean): boolean {
  switch (node.type) {
    case "meta":
      if (node.meta.kind === "ellipsis") return false;
      items.push({
        type: "node",
        name: node.meta.kind === "capture" ? node.meta.name : null,
        named: node.meta.named,
      });
      return true;
    case "terminal": {
      if (node.kind === "block" || (!node.named && node.text !== node.kind)) return false;
      const tokens = lexPython(node.text, 0, node.text.length);
      if (tokens.count !== 1 || tokens.starts[0] !== 0 || tokens.ends[0] !== node.text.length) {
        return false;
      }
      if (!isCode(tokens.kinds[0])) return false;
      items.push({ type: "token", text: node.text });
      return true;
    }
    case "internal":
      if (node.text !== undefined || node.kind === "block") return false;
      for (const child of node.children) if (!flatten(child, items, false)) return false;
      if (!root) items.push({ type: "trail" });
      return true;
  }
}

function isCode(kind: number): boolean {
  return kind !== STRING && kind !== FSTRING && kind !== CONTINUATION;
}

function tokenIs(text: string, tokens: Tokens, i: number, expected: string): boolean {
  return tokens.ends[i] - tokens.starts[i] === expected.length &&
    text.startsWith(expected, tokens.starts[i]);
}

/** Whether two runs of `length` tokens are the same (any string equals any string). */
function sameRun(text: string, tokens: Tokens, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) {
    const ka = tokens.kinds[a + i];
    const kb = tokens.kinds[b + i];
    const stringA = ka === STRING || ka === FSTRING;
    const stringB = kb === STRING || kb === FSTRING;
    if (stringA || stringB) {
      if (stringA !== stringB) return false;
      continue;
    }
    if (ka === CONTINUATION || kb === CONTINUATION) {
      if (ka !== kb) return false;
      continue;
    }
    const sa = tokens.starts[a + i];
    const sb = tokens.starts[b + i];
    const length = tokens.ends[a + i] - sa;
    if (tokens.ends[b + i] - sb !== length) return false;
    for (let j = 0; j < length; j++) {
      if (text.charCodeAt(sa + j) !== text.charCodeAt(sb + j)) return false;
    }
  }
  return true;
}
