/**
 * By-example patterns: code in the target language with metavariables (the
 * ast-grep convention, so answers can be checked against ast-grep), compiled
 * into a tree of plain values the matcher walks.
 *
 * `$NAME` one named node, `$$NAME` one node of any kind, `$$$NAME` zero or more
 * sibling nodes, `$_` / `$$$` the same without capture; `\NAME` and
 * `\(NAME*\)` are the seed spellings of `$NAME` and `$$$NAME`.
 */
import type { Language, Node, Parser } from "web-tree-sitter";
import type { GrepLanguage } from "./languages.ts";

export type MetaVariable =
  | { kind: "capture"; name: string; named: boolean }
  | { kind: "dropped"; named: boolean }
  | { kind: "ellipsis"; name: string | null };

export type PatternNode =
  | { type: "meta"; meta: MetaVariable }
  | { type: "terminal"; kindId: number; kind: string; named: boolean; text: string }
  | {
    type: "internal";
    kindId: number;
    kind: string;
    children: PatternNode[];
    /** Set when the node holds text no child covers (string content in some grammars). */
    text?: string;
  };

export interface CompiledPattern {
  language: string;
  root: PatternNode;
  /** Node kind every match has, or null when the pattern is a bare metavariable. */
  rootKind: string | null;
  /** Texts that occur verbatim in every match (terminal tokens), longest first. */
  literals: string[];
  /** The same tokens in pattern order, repeats included: every match holds them in this order. */
  tokens: string[];
  /** Names of the capturing metavariables. */
  variables: string[];
}

/** Where and why a pattern does not parse; positions are 1-based in the pattern as given. */
export interface PatternProblem {
  line: number;
  column: number;
  offset: number;
  found: string | null;
  expected: string[];
}

/** A pattern that cannot be compiled; the action answers it as `InvalidPattern`. */
export class InvalidPatternError extends SyntaxError {
  readonly problem: PatternProblem | null;
  constructor(message: string, problem: PatternProblem | null = null) {
    super(message);
    this.name = "InvalidPatternError";
    this.problem = problem;
  }
}

/** The pattern text handed to the parser, with the original offset of each of its characters. */
export interface RewrittenPattern {
  text: string;
  origin: number[];
}

const NAME = "[A-Z_][A-Z0-9_]*";
const METAVARIABLE_SPELLINGS = new RegExp(
  `\\\\\\((${NAME})\\*\\\\\\)|\\\\(${NAME})|\\$\\$\\$(${NAME})?|\\$\\$(${NAME})|\\$(${NAME})`,
  "g",
);
const VALID_NAME = new RegExp(`^${NAME}$`);

/** Spells every metavariable with the language's meta character; seed aliases become `$` forms. */
export function rewritePattern(source: string, metaChar: string): RewrittenPattern {
  let text = "";
  const origin: number[] = [];
  let last = 0;
  const copy = (from: number, to: number) => {
    for (let i = from; i < to; i++) origin.push(i);
    text += source.slice(from, to);
  };
  for (const match of source.matchAll(METAVARIABLE_SPELLINGS)) {
    const at = match.index!;
    copy(last, at);
    const [whole, seedMulti, seedSingle, multi, unnamed, single] = match;
    let replacement: string;
    if (seedMulti !== undefined) replacement = metaChar.repeat(3) + seedMulti;
    else if (seedSingle !== undefined) replacement = metaChar + seedSingle;
    else if (whole.startsWith("$$$")) replacement = metaChar.repeat(3) + (multi ?? "");
    else if (unnamed !== undefined) replacement = metaChar.repeat(2) + unnamed;
    else replacement = metaChar + single;
    text += replacement;
    for (let i = 0; i < replacement.length; i++) {
      origin.push(at + Math.min(i, whole.length - 1));
    }
    last = at + whole.length;
  }
  copy(last, source.length);
  origin.push(source.length);
  return { text, origin };
}

/** A rewritten pattern with `prefix` parsed before it (its characters map to offset 0). */
function withPrefix(rewritten: RewrittenPattern, prefix: string): RewrittenPattern {
  if (prefix === "") return rewritten;
  return {
    text: prefix + rewritten.text,
    origin: [...Array.from(prefix, () => 0), ...rewritten.origin],
  };
}

/** The metavariable a node's whole text spells, or null. */
export function metaVariableOf(text: string, metaChar: string): MetaVariable | null {
  const ellipsis = metaChar.repeat(3);
  if (text === ellipsis) return { kind: "ellipsis", name: null };
  if (text.startsWith(ellipsis)) {
    const name = text.slice(ellipsis.length);
    if (!VALID_NAME.test(name)) return null;
    return { kind: "ellipsis", name: name.startsWith("_") ? null : name };
  }
  const double = metaChar.repeat(2);
  const named = !text.startsWith(double);
  const name = text.slice(named ? metaChar.length : double.length);
  if (!text.startsWith(metaChar) || !VALID_NAME.test(name)) return null;
  return name.startsWith("_") ? { kind: "dropped", named } : { kind: "capture", name, named };
}

/**
 * Compiles a pattern: parse it, refuse errors with their position, descend
 * through wrappers that have a single child (module → statement → call), and
 * copy the tree into plain values.
 */
export function compilePattern(
  source: string,
  options: { language: GrepLanguage; parser: Parser },
): CompiledPattern {
  if (source.trim() === "") throw new InvalidPatternError("Cannot parse pattern: it is empty");
  const { metaChar } = options.language;
  const prefix = options.language.patternPrefix ?? "";
  const rewritten = withPrefix(rewritePattern(source, metaChar), prefix);
  const tree = options.parser.parse(rewritten.text);
  if (!tree) throw new InvalidPatternError("Cannot parse pattern: the parser gave no tree");
  try {
    const top = tree.rootNode;
    const context = { source, rewritten, language: options.parser.language!, metaChar };
    if (top.hasError) {
      const unbalanced = bracketError(top, context);
      if (unbalanced) throw unbalanced;
    }
    // The prefix's own nodes (PHP's `<?php` tag) are not part of the pattern.
    const topLevel = significantChildren(top).filter((child) => child.endIndex > prefix.length);
    if (topLevel.length === 0) {
      throw new InvalidPatternError("Cannot parse pattern: it holds no code, only comments");
    }
    if (topLevel.length !== 1) {
      throw new InvalidPatternError(
        `Cannot use pattern: it holds ${
          topLevel.filter((child) => child.isNamed).length
        } top-level nodes; grep matches one expression, statement or definition`,
      );
    }
    // Like ast-grep, descend through wrappers, an error wrapper included when it holds one
    // well-formed node (`return Err($E)` outside a function in older Rust grammars).
    let node = topLevel[0];
    let throughError: Node | null = null;
    while (isSingleNode(node)) {
      if (node.isError) throughError ??= node;
      node = significantChildren(node)[0];
    }
    if (node.type.includes("comment")) {
      throw new InvalidPatternError("Cannot parse pattern: it holds no code, only comments");
    }
    const broken = firstProblemNode(node, metaChar) ??
      (throughError && (!node.isNamed || node.isError) ? throughError : null);
    if (broken) throw problemError(broken, context);
    const root = toPatternNode(node, metaChar);
    const tokens: string[] = [];
    const variables = new Set<string>();
    collect(root, tokens, variables);
    return {
      language: options.language.language,
      root,
      rootKind: root.type === "meta" ? null : root.kind,
      literals: [...new Set(tokens)].sort((a, b) => b.length - a.length),
      tokens,
      variables: [...variables],
    };
  } finally {
    tree.delete();
  }
}

/** Zero-width nodes a parser adds at the end or in place of an optional terminator. */
function isFiller(node: Node): boolean {
  return node.isMissing || node.startIndex === node.endIndex;
}

function significantChildren(node: Node): Node[] {
  return (node.children as Node[]).filter((child) => child && !isFiller(child));
}

function isSingleNode(node: Node): boolean {
  return node.childCount > 0 && significantChildren(node).length === 1;
}

function toPatternNode(node: Node, metaChar: string): PatternNode {
  const meta = metaVariableOf(node.text, metaChar);
  if (meta) return { type: "meta", meta };
  if (node.childCount === 0) {
    return {
      type: "terminal",
      kindId: node.typeId,
      kind: node.type,
      named: node.isNamed,
      text: node.text,
    };
  }
  const children: PatternNode[] = [];
  const significant = significantChildren(node);
  for (const child of significant) children.push(toPatternNode(child, metaChar));
  const internal: PatternNode = {
    type: "internal",
    kindId: node.typeId,
    kind: node.type,
    children,
  };
  if (hasUncoveredText(node, significant)) internal.text = node.text;
  return internal;
}

/** Whether some non-blank text of a node lies between or around its children. */
function hasUncoveredText(node: Node, children: Node[]): boolean {
  const text = node.text;
  let from = 0;
  for (const child of children) {
    const at = child.startIndex - node.startIndex;
    if (text.slice(from, at).trim() !== "") return true;
    from = child.endIndex - node.startIndex;
  }
  return text.slice(from).trim() !== "";
}

/** Tokens a parser may insert without text in the code (automatic semicolons). */
const IMPLICIT_TOKENS = new Set([";", "\n"]);

function collect(node: PatternNode, tokens: string[], variables: Set<string>): void {
  if (node.type === "meta") {
    const name = node.meta.kind === "dropped" ? null : node.meta.name;
    if (name) variables.add(name);
  } else if (node.type === "terminal") {
    // An unnamed token is compared by kind only; its text is reliable when it spells the kind.
    const reliable = node.named || (node.text === node.kind && !IMPLICIT_TOKENS.has(node.text));
    if (node.text.trim() !== "" && reliable) tokens.push(node.text);
  } else {
    for (const child of node.children) collect(child, tokens, variables);
  }
}

/**
 * The first error in a pattern subtree. An error node that spells a
 * metavariable is none (`{ $$$ }` where a grammar wants statements); it
 * becomes the metavariable, as in ast-grep. A token the parser had to insert
 * (a statement terminator left out, as in `foo($A)` in Java; Ruby's `end` of
 * `def $M($$$)`) is no error either: like ast-grep, the pattern is what was
 * written (brackets left open are refused earlier, at the bracket).
 */
function firstProblemNode(node: Node, metaChar: string): Node | null {
  if (!node.hasError && !node.isMissing) return null;
  if (node.isMissing) return null;
  if (node.isError) {
    if (node.startIndex === node.endIndex) return null;
    return metaVariableOf(node.text, metaChar) ? null : node;
  }
  for (const child of node.children) {
    const found = child ? firstProblemNode(child, metaChar) : null;
    if (found) return found;
  }
  return null;
}

interface ProblemContext {
  source: string;
  rewritten: RewrittenPattern;
  language: Language;
  metaChar: string;
}

/** Line, column (1-based) and offset in the pattern as given of an offset in the rewritten text. */
function originalPosition(index: number, context: ProblemContext) {
  const { source, rewritten } = context;
  const offset = rewritten.origin[Math.min(index, rewritten.origin.length - 1)];
  const before = source.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - (before.lastIndexOf("\n") + 1) + 1;
  return { line, column, offset };
}

const CLOSING: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
const OPENING: Record<string, string> = { ")": "(", "]": "[", "}": "{" };

/** An unbalanced bracket among the pattern's tokens, which parsers report poorly. */
function bracketError(top: Node, context: ProblemContext): InvalidPatternError | null {
  const open: Node[] = [];
  const fail = (at: number, found: string | null, expected: string[], message: string) => {
    const { line, column, offset } = originalPosition(at, context);
    return new InvalidPatternError(
      `Cannot parse pattern at line ${line}, column ${column}: ${message}`,
      { line, column, offset, found, expected },
    );
  };
  const cursor = top.walk();
  try {
    let more = true;
    while (more) {
      const node = cursor.currentNode;
      if (node.childCount === 0 && !node.isMissing && !node.isNamed) {
        if (CLOSING[node.type]) open.push(node);
        else if (OPENING[node.type]) {
          const last = open.pop();
          if (!last || CLOSING[last.type] !== node.type) {
            const expected = last ? [CLOSING[last.type]] : [];
            return fail(
              node.startIndex,
              node.type,
              expected,
              last
                ? `unexpected '${node.type}'; expected '${CLOSING[last.type]}'`
                : `unexpected '${node.type}' with no opening '${OPENING[node.type]}'`,
            );
          }
        }
      }
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) {
          more = false;
          break;
        }
      }
    }
  } finally {
    cursor.delete();
  }
  const unclosed = open.pop();
  if (!unclosed) return null;
  const at = originalPosition(unclosed.startIndex, context);
  return fail(
    context.rewritten.text.length,
    "",
    [CLOSING[unclosed.type]],
    `unexpected end of pattern; expected '${CLOSING[unclosed.type]}' to close '${unclosed.type}' ` +
      `at line ${at.line}, column ${at.column}`,
  );
}

function problemError(node: Node, context: ProblemContext): InvalidPatternError {
  const { line, column, offset } = originalPosition(node.startIndex, context);
  let found: string | null = null;
  let expected: string[];
  if (node.isMissing) {
    expected = [node.type];
  } else {
    const leaf = firstLeaf(node);
    found = leaf ? leaf.text : node.text.slice(0, 20);
    expected = expectedAt(node, context.language);
  }
  const where = `line ${line}, column ${column}`;
  const expectation = expected.length > 0
    ? `expected ${expected.map((e) => `'${e}'`).join(", ")}`
    : "the parser could not continue";
  const message = found === null
    ? `Cannot parse pattern at ${where}: ${expectation}`
    : found === ""
    ? `Cannot parse pattern at ${where}: unexpected end of pattern; ${expectation}`
    : `Cannot parse pattern at ${where}: unexpected '${found}'; ${expectation}`;
  return new InvalidPatternError(message, { line, column, offset, found, expected });
}

function firstLeaf(node: Node): Node | null {
  let current: Node | null = node;
  while (current && current.childCount > 0) current = current.child(0);
  return current;
}

const MAX_EXPECTED = 10;

/** Tokens the parser would have accepted where the error starts (tree-sitter lookahead). */
function expectedAt(node: Node, language: Language): string[] {
  const before = node.previousSibling;
  const state = before ? before.nextParseState : node.parent?.parseState ?? 0;
  const iterator = language.lookaheadIterator(state);
  if (!iterator) return [];
  const tokens: string[] = [];
  const named: string[] = [];
  try {
    for (const name of iterator) {
      if (["ERROR", "end", "comment", ""].includes(name) || name.startsWith("_")) continue;
      if (/^[a-z_]+$/.test(name) && name.includes("_")) named.push(name);
      else tokens.push(name);
    }
  } finally {
    iterator.delete();
  }
  const closers = [")", "]", "}", ",", ":", ";"].filter((token) => tokens.includes(token));
  return [...new Set([...closers, ...tokens, ...named])].slice(0, MAX_EXPECTED);
}
