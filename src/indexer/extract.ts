/**
 * Turns one parsed file into symbols, relations and chunks, driven by the
 * language's query captures (`@definition.<kind>`, `@name`, `@doc`,
 * `@reference.<kind>`, `@receiver`, `@import.*`). Runs inside parse Workers.
 */
import type { Node, Query, Tree } from "web-tree-sitter";
import {
  type ChunkDefinition,
  chunkDefinitions,
  type ChunkRange,
  chunkText,
} from "../engine/chunker.ts";
import { codeTerms } from "../engine/tokenizer.ts";
import { sha256Hex, stableId } from "../engine/hash.ts";
import type { ChunkRow, ParseOutput, RelationRow, SymbolRow } from "./parse_types.ts";
import type { LanguageRules } from "./languages.ts";

/** Bounds on the work done for one file; a cut is recorded as a diagnostic. */
export const LIMITS = {
  relations: 50_000,
  symbols: 20_000,
  queryMicros: 10_000_000,
  /** Tree depth below which no pattern starts (deep nesting makes queries quadratic). */
  depth: 400,
  /** Characters of one chunk; a longer one (a very long line) is cut into windows. */
  chunkChars: 8_000,
  /** A file with a line this long and long lines on average is minified: text only. */
  minifiedLine: 5_000,
};
/** Share of the file inside ERROR nodes above which the parse is not trusted. */
const MAX_ERROR_SHARE = 0.5;

/** Kinds that own members: their nested definitions are symbols of the file. */
const CLASS_KINDS = new Set([
  "class",
  "interface",
  "struct",
  "trait",
  "enum",
  "union",
  "record",
  "module",
  "namespace",
  "impl",
  "object",
  "protocol",
  "extension",
]);
const CALLABLE_KINDS = new Set(["function", "method", "constructor"]);
/** Kinds whose nested functions are methods (a function in a namespace stays a function). */
const METHOD_OWNERS = new Set([
  "class",
  "interface",
  "struct",
  "trait",
  "enum",
  "union",
  "record",
  "impl",
  "object",
  "protocol",
  "extension",
]);
/** `@reference.<kind>` → the relation kind stored; any other kind is a plain reference. */
const RELATION_KINDS: Record<string, string> = {
  call: "calls",
  inherits: "inherits",
  implements: "implements",
  read: "reads",
  write: "writes",
  type: "type_of",
  type_of: "type_of",
};

interface Definition {
  node: Node;
  /** `node.endIndex`, read once (each read crosses into wasm). */
  end: number;
  nameNode: Node;
  /** The name: the `@name` text, or several `@name` parts joined by a space (`operator bool`). */
  name: string;
  kind: string;
  doc: string | null;
  parent: Definition | null;
  /** Explicit owner written at the definition (`func (r *T) M`, `void A::f()`, `function M.f`). */
  scope: string | null;
  qualified: string;
  id: string;
  chunkStart: number;
  children: Definition[];
}

interface Reference {
  node: Node;
  /** `node.endIndex`, read once. */
  end: number;
  kind: string;
  name: string;
  receiver: string | null;
  module: string | null;
  alias: string | null;
}

/** Extracts everything the index stores for one file with structure. */
export function extractStructure(options: {
  tree: Tree;
  query: Query;
  text: string;
  path: string;
  rules: LanguageRules;
}): ParseOutput {
  const { tree, query, text, path, rules } = options;
  const diagnostics: string[] = [];
  const root = tree.rootNode;
  let failed = false;
  if (root.hasError) {
    const errors = collectErrors(root);
    diagnostics.push(
      `${errors.count} syntax error node(s), first at line ${
        errors.firstLine + 1
      }; recovered the rest`,
    );
    failed = text.length > 0 && errors.bytes / text.length > MAX_ERROR_SHARE;
  }
  const started = performance.now();
  const matches = query.matches(root, {
    timeoutMicros: LIMITS.queryMicros,
    maxStartDepth: LIMITS.depth,
  });
  if (performance.now() - started >= LIMITS.queryMicros / 1000) {
    diagnostics.push(
      `limit: the query stopped after ${
        LIMITS.queryMicros / 1e6
      } s; symbols and relations are incomplete`,
    );
  } else if (query.didExceedMatchLimit()) {
    diagnostics.push("limit: too many partial query matches; some relations are missing");
  }
  if (textNesting(text) > LIMITS.depth / 4 && treeDeeperThan(root, LIMITS.depth)) {
    diagnostics.push(
      `limit: nesting deeper than ${LIMITS.depth} tree levels; definitions and relations below it are skipped`,
    );
  }
  const definitions = new Map<string, Definition>();
  const references: Reference[] = [];
  // Two patterns may describe the same import binding; it is stored once.
  const seenImports = new Set<string>();
  // Chained package clauses (Scala `package a.b` then `package c`) are joined in source order.
  const declaredModules: Node[] = [];
  for (const match of matches) {
    let outer: Node | null = null;
    let outerName = "";
    let nameNode: Node | null = null;
    let namePrefix = "";
    let nameStart: Node | null = null;
    let receiver: Node | null = null;
    let doc: Node | null = null;
    const modules: Node[] = [];
    let importName: Node | null = null;
    let alias: Node | null = null;
    let wildcard = false;
    let scope: Node | null = null;
    for (const capture of match.captures) {
      const name = capture.name;
      if (name === "name") {
        // Several name parts in one match (`operator` then `bool`) are joined in source order.
        if (nameNode && nameNode.startIndex < capture.node.startIndex) {
          namePrefix += `${nameNode.text} `;
        } else nameStart = capture.node;
        nameNode = capture.node;
      } else if (name === "scope") scope = capture.node;
      else if (name === "module") {
        if (!declaredModules.some((node) => node.startIndex === capture.node.startIndex)) {
          declaredModules.push(capture.node);
        }
      } else if (name === "receiver") receiver = capture.node;
      else if (name === "doc") doc = capture.node;
      else if (name === "import.module") modules.push(capture.node);
      else if (name === "import.name") importName = capture.node;
      else if (name === "import.alias") alias = capture.node;
      else if (name === "import.wildcard") wildcard = true;
      else if (name === "import") (outer = capture.node, outerName = "import");
      else if (name.startsWith("definition.") || name.startsWith("reference.")) {
        outer = capture.node;
        outerName = name;
      }
    }
    if (!outer) continue;
    if (outerName === "import") {
      if (modules.length === 0) continue;
      // Nested groups (`use a::{b::{c}}`) capture one module part per level.
      const moduleText = modules.map((node) => stripQuotes(moduleBefore(node, importName)))
        .join(rules.separator);
      const target = importName ? importName.text : wildcard ? "*" : moduleText;
      const aliasText = alias ? alias.text : null;
      const key =
        `${outer.startIndex}\0${importName?.startIndex}\0${target}\0${moduleText}\0${aliasText}`;
      if (seenImports.has(key)) continue;
      seenImports.add(key);
      references.push({
        node: outer,
        end: outer.endIndex,
        kind: "imports",
        name: target,
        receiver: null,
        module: moduleText,
        alias: aliasText,
      });
    } else if (outerName.startsWith("definition.")) {
      if (!nameNode || nameNode.text === "") continue;
      // One declaration may define several names (`var a, b int`): each is a symbol.
      const end = outer.endIndex;
      const key = `${outer.startIndex}:${end}:${nameNode.startIndex}`;
      if (definitions.has(key)) continue;
      definitions.set(key, {
        node: outer,
        end,
        nameNode,
        name: namePrefix + nameNode.text,
        kind: outerName.slice("definition.".length),
        doc: doc ? firstSentence(doc.text) : null,
        parent: null,
        scope: scope ? ownerText(scope, nameStart ?? nameNode) : null,
        qualified: "",
        id: "",
        chunkStart: outer.startPosition.row,
        children: [],
      });
    } else {
      if (!nameNode) continue;
      const refKind = outerName.slice("reference.".length);
      references.push({
        node: outer,
        end: outer.endIndex,
        kind: RELATION_KINDS[refKind] ?? "references",
        name: nameNode.text,
        receiver: receiver ? clip(receiver.text, 200) : null,
        module: null,
        alias: null,
      });
    }
  }

  const ordered = [...definitions.values()].sort((a, b) =>
    a.node.startIndex - b.node.startIndex || b.end - a.end
  );
  if (ordered.length > LIMITS.symbols) {
    diagnostics.push(`limit: kept the first ${LIMITS.symbols} of ${ordered.length} definitions`);
    ordered.length = LIMITS.symbols;
  }
  const declaredModule = declaredModules.length === 0 ? null : declaredModules
    .sort((a, b) => a.startIndex - b.startIndex).map((node) => node.text).join(rules.separator);
  const symbols = nameDefinitions(ordered, path, rules, declaredModule);
  const relations = relationRows(references, ordered, diagnostics);
  const chunks = structureChunks(text, path, ordered);
  return { symbols, relations, chunks, diagnostics, failed };
}

/** Chunks a search-only text file. */
export function extractText(
  options: { text: string; path: string; chunking: "headings" | "lines" },
): ParseOutput {
  const lines = splitLines(options.text);
  const ranges = chunkText(lines, options.chunking);
  return {
    symbols: [],
    relations: [],
    chunks: chunkRows(options.text, lines, options.path, ranges),
    diagnostics: [],
    failed: false,
  };
}

function nameDefinitions(
  ordered: Definition[],
  path: string,
  rules: LanguageRules,
  declaredModule: string | null,
): SymbolRow[] {
  const stack: Definition[] = [];
  const module = rules.module === "declared"
    ? scopePath(declaredModule ?? "", rules.separator)
    : moduleName(path, rules);
  const ordinals = new Map<string, number>();
  const rows: SymbolRow[] = [];
  const kept: Definition[] = [];
  for (const def of ordered) {
    while (
      stack.length > 0 && (stack[stack.length - 1].end <= def.node.startIndex ||
        sameNode(stack[stack.length - 1], def))
    ) {
      stack.pop();
    }
    const parent = stack.length > 0 ? stack[stack.length - 1] : null;
    // Locals of functions are not symbols of the file.
    if (
      parent && CALLABLE_KINDS.has(parent.kind) && !CALLABLE_KINDS.has(def.kind) &&
      !CLASS_KINDS.has(def.kind)
    ) continue;
    def.parent = parent;
    if (def.kind === "function" && parent && METHOD_OWNERS.has(parent.kind)) def.kind = "method";
    const owner = scopePath(def.scope ?? "", rules.separator);
    if (def.kind === "function" && owner) def.kind = "method";
    const scope = [parent ? parent.qualified : module, owner].filter((s) => s !== "").join(
      rules.separator,
    );
    const separator = rules.kindSeparators?.[def.kind] ?? rules.separator;
    def.qualified = scope ? `${scope}${separator}${def.name}` : def.name;
    const ordinalKey = `${def.qualified}\0${def.kind}`;
    const ordinal = ordinals.get(ordinalKey) ?? 0;
    ordinals.set(ordinalKey, ordinal + 1);
    def.id = stableId([path, def.qualified, def.kind, ordinal]);
    const leading = leadingText(def.node);
    def.chunkStart = leading.start;
    if (parent) parent.children.push(def);
    stack.push(def);
    kept.push(def);
    const start = declarationStart(def.node);
    const endPosition = def.node.endPosition;
    rows.push({
      id: def.id,
      name: def.name,
      qualified_name: def.qualified,
      kind: def.kind,
      start_line: start.row + 1,
      start_col: start.column + 1,
      end_line: endPosition.row + 1,
      end_col: endPosition.column + 1,
      signature: signatureOf(def.node),
      doc: def.doc ?? leading.doc,
      parent_id: parent ? parent.id : null,
      exported: isExported(def, rules),
    });
  }
  ordered.length = 0;
  ordered.push(...kept);
  return rows;
}

/** Names declared together share their declaration node: they are siblings, not nested. */
function sameNode(a: Definition, b: Definition): boolean {
  return a.node.startIndex === b.node.startIndex && a.end === b.end;
}

function relationRows(
  references: Reference[],
  definitions: Definition[],
  diagnostics: string[],
): RelationRow[] {
  references.sort((a, b) => a.node.startIndex - b.node.startIndex);
  // A node captured as a call, import or base class is not also a plain reference.
  const stronger = new Set(
    references.filter((ref) => ref.kind !== "references").map((ref) =>
      `${ref.node.startIndex}:${ref.end}`
    ),
  );
  const rows: RelationRow[] = [];
  const seenReferences = new Set<string>();
  const stack: Definition[] = [];
  let next = 0;
  for (const ref of references) {
    const at = ref.node.startIndex;
    while (next < definitions.length && definitions[next].node.startIndex <= at) {
      const def = definitions[next++];
      while (stack.length > 0 && stack[stack.length - 1].end <= def.node.startIndex) {
        stack.pop();
      }
      // Names declared together: references inside belong to the first of them.
      if (stack.length === 0 || !sameNode(stack[stack.length - 1], def)) stack.push(def);
    }
    while (stack.length > 0 && stack[stack.length - 1].end <= at) stack.pop();
    const owner = stack.length > 0 ? stack[stack.length - 1] : null;
    // A definition's own name is not a reference to it.
    if (ref.kind === "references" && owner && owner.nameNode.startIndex === at) continue;
    if (ref.kind === "references") {
      if (stronger.has(`${ref.node.startIndex}:${ref.end}`)) continue;
      // Every site is kept (navigation needs them all); two patterns on one node count once.
      const key = `${ref.node.startIndex}:${ref.end}`;
      if (seenReferences.has(key)) continue;
      seenReferences.add(key);
    }
    if (rows.length >= LIMITS.relations) {
      diagnostics.push(`limit: kept the first ${LIMITS.relations} relations`);
      break;
    }
    const endPosition = ref.node.endPosition;
    rows.push({
      kind: ref.kind,
      from_symbol: owner ? owner.id : null,
      target: clip(ref.name, 300),
      receiver: ref.receiver,
      module: ref.module,
      alias: ref.alias,
      start_line: ref.node.startPosition.row + 1,
      start_col: ref.node.startPosition.column + 1,
      end_line: endPosition.row + 1,
      end_col: endPosition.column + 1,
    });
  }
  return rows;
}

function structureChunks(text: string, path: string, definitions: Definition[]): ChunkRow[] {
  const lines = splitLines(text);
  const toChunkDefinition = (def: Definition): ChunkDefinition => {
    const body = def.node.childForFieldName("body");
    const breaks = body ? body.namedChildren.map((child) => child!.startPosition.row) : [];
    return {
      startLine: def.chunkStart,
      endLine: def.node.endPosition.row,
      bodyLine: body ? body.startPosition.row : def.node.startPosition.row,
      symbolPath: def.qualified,
      breaks,
      children: def.children.map(toChunkDefinition),
    };
  };
  const top = definitions.filter((def) => def.parent === null).map(toChunkDefinition);
  const ranges = chunkDefinitions(lines.map((line) => line.length + 1), nonOverlapping(top));
  return chunkRows(text, lines, path, ranges);
}

/** Siblings whose leading comments reach into the previous sibling are trimmed back. */
function nonOverlapping(defs: ChunkDefinition[]): ChunkDefinition[] {
  let previousEnd = -1;
  for (const def of defs) {
    if (def.startLine <= previousEnd) def.startLine = Math.min(previousEnd + 1, def.endLine);
    previousEnd = def.endLine;
    def.children = nonOverlapping(def.children);
  }
  return defs.filter((def, i) => i === 0 || def.startLine > defs[i - 1].endLine);
}

function chunkRows(
  text: string,
  lines: string[],
  path: string,
  ranges: ReturnType<typeof chunkText>,
): ChunkRow[] {
  // Character and byte offsets of each line start, computed once (linear in the file).
  const offsets: number[] = [0];
  const byteOffsets: number[] = [0];
  for (const line of lines) {
    offsets.push(offsets[offsets.length - 1] + line.length + 1);
    byteOffsets.push(byteOffsets[byteOffsets.length - 1] + utf8Length(line) + 1);
  }
  const ordinals = new Map<string, number>();
  const rows: ChunkRow[] = [];
  const push = (range: ChunkRange, startByte: number, endByte: number, chunkText: string) => {
    const pathKey = range.symbolPath ?? "";
    const ordinal = ordinals.get(pathKey) ?? 0;
    ordinals.set(pathKey, ordinal + 1);
    const symbolTerms = range.symbolPath ? codeTerms(range.symbolPath).join(" ") + " " : "";
    rows.push({
      chunk_key: stableId([path, pathKey, ordinal]),
      start_line: range.startLine + 1,
      end_line: range.endLine + 1,
      start_byte: startByte,
      end_byte: endByte,
      kind: range.kind,
      symbol_path: range.symbolPath,
      content_hash: sha256Hex(chunkText).slice(0, 32),
      terms: symbolTerms + codeTerms(chunkText).join(" "),
    });
  };
  for (const range of ranges) {
    const startChar = offsets[range.startLine];
    const endChar = Math.min(text.length, offsets[range.endLine + 1] - 1);
    if (endChar - startChar <= LIMITS.chunkChars) {
      const chunkText = text.slice(startChar, endChar);
      push(range, byteOffsets[range.startLine], byteOffsets[range.endLine + 1] - 1, chunkText);
      continue;
    }
    // Lines too long to chunk by lines (minified or generated code): character windows.
    for (const window of characterWindows(text, startChar, endChar)) {
      const startLine = lineAt(offsets, window.start);
      const endLine = lineAt(offsets, window.end - 1);
      const chunkText = text.slice(window.start, window.end);
      const startByte = byteOffsets[startLine] +
        utf8Length(text.slice(offsets[startLine], window.start));
      push(
        { ...range, startLine, endLine },
        startByte,
        startByte + utf8Length(chunkText),
        chunkText,
      );
    }
  }
  return rows;
}

/** Windows of at most `LIMITS.chunkChars` characters, ending after a separator when one is near. */
function characterWindows(
  text: string,
  start: number,
  end: number,
): { start: number; end: number }[] {
  const windows: { start: number; end: number }[] = [];
  let at = start;
  while (at < end) {
    let stop = Math.min(end, at + LIMITS.chunkChars);
    if (stop < end) {
      const slice = text.slice(at + LIMITS.chunkChars / 2, stop);
      const cut = Math.max(
        slice.lastIndexOf(";"),
        slice.lastIndexOf("}"),
        slice.lastIndexOf("\n"),
        slice.lastIndexOf(" "),
        slice.lastIndexOf(","),
      );
      if (cut >= 0) stop = at + LIMITS.chunkChars / 2 + cut + 1;
    }
    windows.push({ start: at, end: stop });
    at = stop;
  }
  return windows;
}

/** The 0-based line holding a character offset (offsets: line starts). */
function lineAt(offsets: number[], char: number): number {
  let low = 0;
  let high = offsets.length - 2;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (offsets[mid] <= char) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Whether a file is minified or generated on long lines: indexed as text, not parsed. */
export function looksMinified(text: string): boolean {
  if (text.length < LIMITS.minifiedLine * 2) return false;
  let longest = 0;
  let lines = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
    longest = Math.max(longest, i - lineStart);
    lineStart = i + 1;
    lines++;
  }
  longest = Math.max(longest, text.length - lineStart);
  return longest >= LIMITS.minifiedLine && text.length / lines > 300;
}

/** A cheap upper estimate of nesting: bracket depth and indentation, from the text alone. */
function textNesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let indent = 0;
  let atLineStart = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10) {
      atLineStart = true;
      indent = 0;
      continue;
    }
    if (atLineStart && (code === 32 || code === 9)) {
      indent += code === 9 ? 4 : 1;
      if (indent / 2 > deepest) deepest = indent / 2;
      continue;
    }
    atLineStart = false;
    if (code === 40 || code === 91 || code === 123) {
      if (++depth > deepest) deepest = depth;
    } else if (code === 41 || code === 93 || code === 125) depth = Math.max(0, depth - 1);
  }
  return deepest;
}

/** Whether any node of the tree lies deeper than `limit` levels. */
function treeDeeperThan(root: Node, limit: number): boolean {
  const cursor = root.walk();
  try {
    let depth = 0;
    for (;;) {
      if (depth > limit) return true;
      if (cursor.gotoFirstChild()) {
        depth++;
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return false;
        depth--;
      }
    }
  } finally {
    cursor.delete();
  }
}

const encoder = new TextEncoder();
function utf8Length(line: string): number {
  // ASCII fast path: most source lines need no encoding.
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(line) ? line.length : encoder.encode(line).length;
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * The module name of a file: `pkg/sub/mod.py` → `pkg.sub.mod`; `src/a.ts` → `src/a`;
 * `src/a/b.rs` → `crate::a::b`; empty for `none` and `declared` (which names come from the file).
 */
export function moduleName(path: string, rules: LanguageRules): string {
  const withoutExtension = path.replace(/\.[^./]+$/, "");
  switch (rules.module) {
    case "python":
      return withoutExtension.replace(/\/__init__$/, "").replace(/^__init__$/, "").split("/")
        .join(".");
    case "path":
      return withoutExtension;
    case "rust": {
      const at = withoutExtension.lastIndexOf("src/");
      if (at !== 0 && (at < 0 || withoutExtension[at - 1] !== "/")) return "";
      const parts = withoutExtension.slice(at + 4).split("/").filter((part) => part !== "mod");
      if (parts.length === 1 && (parts[0] === "lib" || parts[0] === "main")) parts.pop();
      return ["crate", ...parts].join("::");
    }
    default:
      return "";
  }
}

/**
 * An owner path as written (`*T`, `Outer::Inner<T>`, `M.sub`, `obj:`), as qualified-name
 * segments joined with the language's separator; generics and pointer marks dropped.
 */
export function scopePath(text: string, separator: string): string {
  let depth = 0;
  let plain = "";
  for (const char of text) {
    if (char === "<" || char === "[" || char === "(") depth++;
    else if (char === ">" || char === "]" || char === ")") depth = Math.max(0, depth - 1);
    else if (depth === 0) plain += char;
  }
  return plain.split(/::|[.:\\]/).map((part) => part.replace(/[\s*&]+/g, ""))
    .filter((part) => part !== "").join(separator);
}

/** Leading parts of a definition node that are not its declaration line. */
const ANNOTATIONS =
  /^(marker_annotation|annotation|attribute_list|attribute_item|decorator|comment|line_comment|block_comment)$/;

/**
 * Where a definition's declaration starts: its node, without leading annotations and attributes
 * (Java `@Override`, C# `[Serializable]`), which stay in its range for chunks.
 */
function declarationStart(node: Node): { row: number; column: number } {
  for (const child of node.children) {
    if (!child || ANNOTATIONS.test(child.type)) continue;
    if (child.type === "modifiers") {
      const modifier = child.children.find((part) => part && !ANNOTATIONS.test(part.type));
      if (!modifier) continue;
      return modifier.startPosition;
    }
    return child.startPosition;
  }
  return node.startPosition;
}

/** Nodes that wrap a definition and start where its leading text starts. */
const WRAPPERS =
  /^(decorated_definition|export_statement|lexical_declaration|variable_declaration|ambient_declaration|template_declaration)$/;
/** Siblings before a definition that belong to it: comments, decorators, Rust attributes. */
const LEADING = /comment|decorator|^attribute_item$/;

/**
 * Where a definition's leading decorators, export keyword, attributes and comments start, and
 * the first sentence of its leading comments (its doc when the query captured none).
 */
function leadingText(node: Node): { start: number; doc: string | null } {
  let top = node;
  while (
    top.parent &&
    WRAPPERS.test(top.parent.type) &&
    top.parent.startPosition.row >= top.startPosition.row - 50
  ) {
    top = top.parent;
  }
  let start = top.startPosition.row;
  // The first statement of a body node that starts with it (a Ruby class body): the comments
  // before the body belong to this definition.
  let anchor = top;
  while (
    !anchor.previousSibling && anchor.parent?.parent &&
    anchor.parent.startIndex === anchor.startIndex
  ) {
    anchor = anchor.parent;
  }
  const comments: string[] = [];
  let previous = anchor.previousSibling;
  while (previous) {
    if (LEADING.test(previous.type)) {
      if (previous.endPosition.row < start - 1) break;
      // Attributes between a doc comment and its item (`/// doc` then `#[derive]`) are skipped.
      if (previous.type.includes("comment")) comments.unshift(previous.text);
      start = previous.startPosition.row;
      previous = previous.previousSibling;
      continue;
    }
    // A comment a grammar attached as the last descendant of the node before (Kotlin's imports).
    let last = previous.lastChild;
    for (let depth = 0; last && !LEADING.test(last.type) && depth < 4; depth++) {
      last = last.lastChild;
    }
    if (!last || !LEADING.test(last.type) || last.endPosition.row < start - 1) break;
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

function signatureOf(node: Node): string | null {
  const body = node.childForFieldName("body") ?? node.childForFieldName("value");
  const end = body && body.startIndex > node.startIndex ? body.startIndex : node.endIndex;
  let text = node.text.slice(0, end - node.startIndex);
  const firstLines = text.split("\n");
  if (!body && firstLines.length > 1) text = firstLines[0];
  text = text.replace(/\s+/g, " ").replace(/[\s{:=(]+$/, "").trim();
  return text === "" ? null : clip(text, 240);
}

function isExported(def: Definition, rules: LanguageRules): boolean {
  const name = def.name;
  if (rules.exported === "underscore") {
    return !name.startsWith("_") || (name.startsWith("__") && name.endsWith("__"));
  }
  if (rules.exported === "capitalized") return /^\p{Lu}/u.test(name);
  if (rules.exported === "modifiers") {
    const head = def.node.text.slice(0, Math.max(0, def.nameNode.startIndex - def.node.startIndex));
    if (rules.private && new RegExp(rules.private).test(head)) return false;
    if (rules.public && new RegExp(rules.public).test(head)) return true;
    return rules.defaultExported ?? false;
  }
  if (def.parent) {
    return def.parent.kind !== "function" && !name.startsWith("#") &&
      !/^\s*(private|protected)\b/.test(def.node.text);
  }
  for (let node: Node | null = def.node.parent, depth = 0; node && depth < 3; node = node.parent) {
    if (node.type === "export_statement") return true;
    depth++;
  }
  return false;
}

function collectErrors(root: Node): { count: number; bytes: number; firstLine: number } {
  let count = 0;
  let bytes = 0;
  let firstLine = -1;
  const stack: Node[] = [root];
  while (stack.length > 0 && count < 10_000) {
    const node = stack.pop()!;
    if (node.isError || node.isMissing) {
      count++;
      bytes += node.endIndex - node.startIndex;
      if (firstLine < 0 || node.startPosition.row < firstLine) firstLine = node.startPosition.row;
      continue;
    }
    if (!node.hasError) continue;
    for (const child of node.children) if (child) stack.push(child);
  }
  return { count, bytes, firstLine: Math.max(firstLine, 0) };
}

/** An import path that ends with the imported name (`a.b.C`, name `C`) without that name. */
function moduleBefore(module: Node, name: Node | null): string {
  if (!name || name.endIndex !== module.endIndex || name.startIndex <= module.startIndex) {
    return module.text;
  }
  return module.text.slice(0, name.startIndex - module.startIndex).replace(/(::|[.\\/:])\s*$/, "")
    .trimEnd();
}

/** The owner written at a definition; a scope that encloses the name (`A::B::f`) ends before it. */
function ownerText(scope: Node, name: Node): string {
  if (scope.startIndex <= name.startIndex && name.endIndex <= scope.endIndex) {
    return scope.text.slice(0, name.startIndex - scope.startIndex);
  }
  return scope.text;
}

function stripQuotes(text: string): string {
  return text.replace(/^['"`]|['"`]$/g, "");
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}
