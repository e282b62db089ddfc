/**
 * Reading one definition's surroundings in the tree: where its declaration and its leading
 * text (comments, decorators, `export`) start, its signature and its doc summary. The node
 * types each language uses for these come from its manifest (`nodes`).
 */
import type { Node } from "web-tree-sitter";
import type { ExtractionNodes } from "./manifest.ts";

/** Node types of one language as sets, built once per grammar. */
export interface NodeSets {
  comments: ReadonlySet<string>;
  /** Comments plus attachments: siblings before a definition that belong to it. */
  leading: ReadonlySet<string>;
  annotations: ReadonlySet<string>;
  modifiers: ReadonlySet<string>;
  wrappers: ReadonlySet<string>;
  exports: ReadonlySet<string>;
  fileScopes: ReadonlySet<string>;
}

/** The node-type sets of a manifest's `nodes` section. */
export function nodeSets(nodes: ExtractionNodes): NodeSets {
  return {
    comments: new Set(nodes.comments),
    leading: new Set([...nodes.comments, ...nodes.attachments]),
    annotations: new Set(nodes.annotations),
    modifiers: new Set(nodes.modifiers),
    wrappers: new Set(nodes.wrappers),
    exports: new Set(nodes.exports),
    fileScopes: new Set(nodes.fileScopes),
  };
}

/**
 * Where a definition's declaration starts: its node, without leading annotations and attributes
 * (Java `@Override`, C# `[Serializable]`), which stay in its range for chunks.
 */
export function declarationStart(node: Node, sets: NodeSets): { row: number; column: number } {
  for (const child of node.children) {
    if (!child || sets.annotations.has(child.type)) continue;
    if (sets.modifiers.has(child.type)) {
      const modifier = child.children.find((part) => part && !sets.annotations.has(part.type));
      if (!modifier) continue;
      return modifier.startPosition;
    }
    return child.startPosition;
  }
  return node.startPosition;
}

/** Wrappers more than this many lines above a definition are not its leading text. */
const MAX_WRAPPER_LINES = 50;
/** How deep to look for a comment a grammar attached to the end of the node before. */
const MAX_TRAILING_DEPTH = 4;

/**
 * Where a definition's leading decorators, export keyword, attributes and comments start, and
 * the first sentence of its leading comments (its doc when the query captured none).
 */
export function leadingText(node: Node, sets: NodeSets): { start: number; doc: string | null } {
  // Each getter of a node (parent, sibling, type, end) is a call into the parser's memory, and
  // parent and sibling make a new node object: each is read once.
  let top = node;
  for (;;) {
    const parent = top.parent;
    if (
      !parent || !sets.wrappers.has(parent.type) ||
      parent.startPosition.row < top.startPosition.row - MAX_WRAPPER_LINES
    ) break;
    top = parent;
  }
  let start = top.startPosition.row;
  // The first statement of a body node that starts with it (a Ruby class body): the comments
  // before the body belong to this definition.
  let anchor = top;
  let previous = anchor.previousSibling;
  while (!previous) {
    const parent = anchor.parent;
    if (!parent || !parent.parent || parent.startIndex !== anchor.startIndex) break;
    anchor = parent;
    previous = anchor.previousSibling;
  }
  const comments: string[] = [];
  while (previous) {
    const type = previous.type;
    if (sets.leading.has(type)) {
      if (previous.endPosition.row < start - 1) break;
      // Attributes between a doc comment and its item (`/// doc` then `#[derive]`) are skipped.
      if (sets.comments.has(type)) comments.unshift(previous.text);
      start = previous.startPosition.row;
      previous = previous.previousSibling;
      continue;
    }
    // A comment a grammar attached as the last descendant of the node before (Kotlin's imports).
    let last = previous.lastChild;
    let leading = last !== null && sets.leading.has(last.type);
    for (let depth = 0; last && !leading && depth < MAX_TRAILING_DEPTH; depth++) {
      last = last.lastChild;
      leading = last !== null && sets.leading.has(last.type);
    }
    if (!last || !leading || last.endPosition.row < start - 1) break;
    previous = last;
  }
  return { start, doc: comments.length > 0 ? firstSentence(comments.join("\n")) : null };
}

/** Markup tags of doc comments (C# XML docs, HTML in Javadoc) that are not part of the text. */
const DOC_TAGS =
  /<\/?(?:summary|remarks|returns|param|typeparam|para|p|c|code|b|i|em|strong|br|ul|ol|li|pre|tt|value|example|exception|inheritdoc)\b[^<>]*>/g;

/** The first sentence of a comment or docstring, markers removed. */
export function firstSentence(raw: string): string | null {
  const cleaned = raw
    .replace(/^\s*(\/\*\*?|\/\/+!?|#+|"""|'''|"|')/gm, "")
    .replace(/(\*\/|"""|''')\s*$/gm, "")
    .replace(/^\s*\*+ ?/gm, "")
    .replace(/^\s*@\w+.*$/gm, "")
    // Markup of C# XML docs and Javadoc: `<see cref="T"/>` and `{@link T}` keep their target.
    .replace(/<(?:see|seealso|paramref|typeparamref)\s+\w+="([^"]*)"\s*\/>/g, "$1")
    .replace(/\{@(?:link|linkplain|code|literal)\s+([^}]*)\}/g, "$1")
    .replace(DOC_TAGS, "")
    .trim();
  if (cleaned === "") return null;
  const paragraph = cleaned.split(/\n\s*\n/)[0].replace(/\s+/g, " ");
  const sentence = /^(.+?[.!?])(\s|$)/.exec(paragraph);
  return clip(sentence ? sentence[1] : paragraph, 240);
}

/**
 * A definition's text up to its body (tree-sitter's `body` field, else `value`), whitespace
 * collapsed; only the first line when it has neither.
 */
export function signatureOf(node: Node): string | null {
  const body = node.childForFieldName("body") ?? node.childForFieldName("value");
  const end = body && body.startIndex > node.startIndex ? body.startIndex : node.endIndex;
  let text = node.text.slice(0, end - node.startIndex);
  const firstLines = text.split("\n");
  if (!body && firstLines.length > 1) text = firstLines[0];
  text = text.replace(/\s+/g, " ").replace(/[\s{:=(]+$/, "").trim();
  return text === "" ? null : clip(text, 240);
}

/** The owner written at a definition; a scope that encloses the name (`A::B::f`) ends before it. */
export function ownerText(scope: Node, name: Node): string {
  if (scope.startIndex <= name.startIndex && name.endIndex <= scope.endIndex) {
    return scope.text.slice(0, name.startIndex - scope.startIndex);
  }
  return scope.text;
}

/** An import path that ends with the imported name (`a.b.C`, name `C`) without that name. */
export function moduleBefore(module: Node, name: Node | null): string {
  if (!name || name.endIndex !== module.endIndex || name.startIndex <= module.startIndex) {
    return module.text;
  }
  return module.text.slice(0, name.startIndex - module.startIndex).replace(/(::|[.\\/:])\s*$/, "")
    .trimEnd();
}

/** At most `max` characters of a text. */
export function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}
