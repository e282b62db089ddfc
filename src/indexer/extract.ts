/**
 * Turns one parsed file into symbols, relations and chunks, driven by the
 * language's query captures (`@definition.<kind>`, `@name`, `@doc`,
 * `@reference.<kind>`, `@receiver`, `@import.*`) and the node types of its
 * manifest. Runs inside parse Workers. Each step is a function of the previous
 * ones' values: tree health, query matches, what they describe
 * (`extract_matches.ts`), named symbols (`extract_names.ts`), relation rows
 * (`extract_relations.ts`) and chunks (`extract_chunks.ts`).
 */
import type { Node, Parser, Query, Tree } from "web-tree-sitter";
import type { ModuleRoot, ParseOutput } from "./parse_types.ts";
import type { ExtractionNodes, LanguageRules } from "./manifest.ts";
import { type DefinitionDraft, type MatchedFile, MatchReader } from "./extract_matches.ts";
import { nameDefinitions, sourceOrder } from "./extract_names.ts";
import { lineStarts, relationRows } from "./extract_relations.ts";
import { structureChunks, textChunks } from "./extract_chunks.ts";
import { type NodeSets, nodeSets } from "./extract_nodes.ts";

export { firstSentence } from "./extract_nodes.ts";
export { moduleName, scopePath } from "./extract_names.ts";

/** Bounds on the work done for one file; a cut is recorded as a diagnostic. */
export const LIMITS = {
  relations: 50_000,
  symbols: 20_000,
  queryMicros: 10_000_000,
  /** Tree depth below which no pattern starts (deep nesting makes queries quadratic). */
  depth: 400,
  /**
   * Characters of whole top-level statements one run of the query covers: a file is queried
   * run by run, so the matches of one run (and their nodes) die before the next is made.
   */
  queryRun: 16_000,
  /** Characters of one chunk; a longer one (a very long line) is cut into windows. */
  chunkChars: 8_000,
  /** A file with a line this long and long lines on average is minified: text only. */
  minifiedLine: 5_000,
};
/** Share of the file inside ERROR nodes above which the parse is not trusted. */
const MAX_ERROR_SHARE = 0.5;

/** A language's extraction inputs that do not change per file. */
export interface ExtractionGrammar {
  query: Query;
  rules: LanguageRules;
  nodes: ExtractionNodes;
}

const setsCache = new WeakMap<ExtractionNodes, NodeSets>();

/** Extracts everything the index stores for one file with structure. */
export function extractStructure(
  options: {
    tree: { rootNode: Node };
    text: string;
    path: string;
    grammar: ExtractionGrammar;
    /** The package root the file's module is named from (`readPackageRoots`), if any. */
    packageRoot?: ModuleRoot | null;
  },
): ParseOutput {
  const { text, path, grammar } = options;
  const root = options.tree.rootNode;
  let sets = setsCache.get(grammar.nodes);
  if (!sets) setsCache.set(grammar.nodes, sets = nodeSets(grammar.nodes));
  const health = treeHealth(root, text);
  const parsed = parsedText(root, text);
  const queried = runQuery(grammar.query, root, { text, parsed }, grammar.rules.separator);
  const matched = queried.matched;
  // A file-scoped namespace (C# `namespace A;`) owns everything after it.
  const drafts = sets.fileScopes.size === 0 ? matched.definitions : matched.definitions.map((
    draft,
  ) => (sets.fileScopes.has(draft.node.type) ? { ...draft, end: root.endIndex } : draft));
  const capped = capDefinitions(sourceOrder(drafts));
  const named = nameDefinitions(capped.definitions, {
    path,
    rules: grammar.rules,
    sets,
    declaredModule: matched.declaredModule,
    packageRoot: options.packageRoot ?? null,
  });
  const relations = relationRows(matched.references, named.definitions, {
    limit: LIMITS.relations,
    lines: lineStarts(parsed),
  });
  const chunks = structureChunks({
    text,
    path,
    definitions: named.definitions,
    maxChars: LIMITS.chunkChars,
  });
  return {
    symbols: named.symbols,
    relations: relations.rows,
    chunks,
    diagnostics: [
      ...health.diagnostics,
      ...queried.diagnostics,
      ...capped.diagnostics,
      ...relations.diagnostics,
    ],
    failed: health.failed,
  };
}

/**
 * Parses a file for extraction. Where a grammar misreads a line break that the language treats
 * as ending a construct, its rules name `repairs`; when the parse has errors, the text is parsed
 * again with those line breaks made explicit — same length, so every offset is the same, and
 * rows are the same too (see each repair) — and the tree with fewer errors is kept. Null when
 * `progressCallback` stopped the parse.
 */
export function parseForExtraction(
  parser: Parser,
  text: string,
  options: { rules: LanguageRules; progressCallback?: () => boolean },
): Tree | null {
  const parseOptions = options.progressCallback
    ? { progressCallback: options.progressCallback }
    : undefined;
  const tree = parser.parse(text, null, parseOptions);
  const repairs = options.rules.repairs ?? [];
  if (!tree || !tree.rootNode.hasError || repairs.length === 0) return tree;
  const repaired = repairs.reduce((current, repair) => REPAIRS[repair](current), text);
  if (repaired === text) return tree;
  const second = parser.parse(repaired, null, parseOptions);
  if (!second) return tree;
  if (collectErrors(second.rootNode).count < collectErrors(tree.rootNode).count) {
    tree.delete();
    return second;
  }
  second.delete();
  return tree;
}

const REPAIRS: Record<NonNullable<LanguageRules["repairs"]>[number], (text: string) => string> = {
  member_lines: separateMemberLines,
  constructor_lines: joinConstructorLines,
};

/**
 * TypeScript ends a type member at a line break, where the grammar reads a line that starts
 * with `<` or `(` (a call signature of an interface) as continuing the member before it: such a
 * line, right after a line that ends a type (a name, `]`, `)`, `>`, a quote or `?`, not `=>`),
 * gets a `;` in place of its last indentation character. Comment lines are skipped when finding
 * the line before.
 */
export function separateMemberLines(text: string): string {
  const lines = text.split("\n");
  let previous = "";
  let changed = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const start = /^([ \t]+)[<(]/.exec(line);
    if (start && /[\w$\])>'"`?]$/.test(previous) && !previous.endsWith("=>")) {
      const at = start[1].length - 1;
      lines[i] = `${line.slice(0, at)};${line.slice(at + 1)}`;
      changed = true;
    }
    if (!/^\s*(\/\/|\/\*|\*|$)/.test(line)) previous = line.replace(/\s*\/\/.*$/, "").trimEnd();
  }
  return changed ? lines.join("\n") : text;
}

/**
 * Kotlin's primary constructor may start the line after its class header
 * (`class FileSpec` newline `private constructor(…)`), which the grammar reads as a class
 * without one: the header's line break becomes a space and the space before `constructor`
 * becomes the line break, so the modifiers join the header's line and `constructor(` keeps its
 * row (only the columns before it on that line change).
 */
export function joinConstructorLines(text: string): string {
  const lines = text.split("\n");
  let changed = false;
  for (let i = 1; i < lines.length; i++) {
    const modifiers = /^(\s*(?:(?:@[\w.]+(?:\([^)]*\))?|[a-z]+)\s+)+?)\s?constructor\s*\(/.exec(
      lines[i],
    );
    if (!modifiers || !/\b(?:class|object)\s+\w+/.test(lines[i - 1])) continue;
    if (/[{(,:=]\s*$/.test(lines[i - 1]) || /\/\/|\/\*/.test(lines[i - 1])) continue;
    const space = lines[i].indexOf("constructor") - 1;
    if (space < 1 || !/\s/.test(lines[i][space])) continue;
    lines[i - 1] = `${lines[i - 1]} ${lines[i].slice(0, space)}`;
    lines[i] = lines[i].slice(space + 1);
    changed = true;
  }
  return changed ? lines.join("\n") : text;
}

/** Chunks a search-only text file. */
export function extractText(
  options: { text: string; path: string; chunking: "headings" | "lines" },
): ParseOutput {
  return {
    symbols: [],
    relations: [],
    chunks: textChunks({ ...options, maxChars: LIMITS.chunkChars }),
    diagnostics: [],
    failed: false,
  };
}

/** Syntax errors of a tree; `failed` when too much of the file is inside them to trust. */
function treeHealth(root: Node, text: string): { diagnostics: string[]; failed: boolean } {
  if (!root.hasError) return { diagnostics: [], failed: false };
  const errors = collectErrors(root);
  // A grammar may flag a tree whose nodes hold no ERROR or MISSING node (C#'s `#pragma` on
  // the file's last line without a line break): nothing is lost.
  if (errors.count === 0) return { diagnostics: [], failed: false };
  return {
    diagnostics: [
      `${errors.count} syntax error node(s), first at line ${
        errors.firstLine + 1
      }; recovered the rest`,
    ],
    failed: text.length > 0 && errors.bytes / text.length > MAX_ERROR_SHARE,
  };
}

/**
 * What the query's matches describe, within the time and depth bounds, and a diagnostic for each
 * bound hit. The query runs over runs of whole top-level statements (`queryRuns`), each run's
 * matches read before the next run; a file whose matches cross runs is queried whole.
 */
function runQuery(
  query: Query,
  root: Node,
  /** The file's text, and the text the tree was parsed from (`parsedText`). */
  source: { text: string; parsed: string },
  separator: string,
): { matched: MatchedFile; diagnostics: string[] } {
  const { text, parsed } = source;
  const diagnostics: string[] = [];
  const started = performance.now();
  const bounds = { maxStartDepth: LIMITS.depth };
  let reader = new MatchReader(separator, parsed);
  let exceeded = false;
  let split = false;
  const runs = queryRuns(root, LIMITS.queryRun);
  if (runs) {
    split = true;
    for (const run of runs) {
      const left = LIMITS.queryMicros - (performance.now() - started) * 1000;
      if (left <= 0) break;
      const matches = query.matches(root, {
        ...bounds,
        timeoutMicros: Math.ceil(left),
        startPosition: { row: run.startRow, column: 0 },
        ...(run.endRow === null ? {} : { endPosition: { row: run.endRow, column: 0 } }),
      });
      exceeded ||= query.didExceedMatchLimit();
      if (!reader.read(matches, { start: run.start, end: run.end, rootId: root.id })) {
        split = false;
        break;
      }
    }
  }
  if (!split) {
    reader = new MatchReader(separator, parsed);
    reader.read(query.matches(root, { ...bounds, timeoutMicros: LIMITS.queryMicros }), null);
    exceeded = query.didExceedMatchLimit();
  }
  if (performance.now() - started >= LIMITS.queryMicros / 1000) {
    diagnostics.push(
      `limit: the query stopped after ${
        LIMITS.queryMicros / 1e6
      } s; symbols and relations are incomplete`,
    );
  } else if (exceeded) {
    diagnostics.push("limit: too many partial query matches; some relations are missing");
  }
  if (textNesting(text) > LIMITS.depth / 4 && treeDeeperThan(root, LIMITS.depth)) {
    diagnostics.push(
      `limit: nesting deeper than ${LIMITS.depth} tree levels; definitions and relations below it are skipped`,
    );
  }
  return { matched: reader.result(), diagnostics };
}

/** One run of the query: whole lines `[startRow, endRow)`, offsets `[start, end)`. */
interface QueryRun {
  startRow: number;
  /** Null for the last run (to the end of the file). */
  endRow: number | null;
  start: number;
  end: number;
}

/**
 * Runs of about `size` characters of whole top-level statements, or null when the file is one
 * run. A run starts at the start of the line of its first statement, and only where the
 * statement before ends on an earlier line: every node, empty ones included, then lies inside
 * exactly one run (a pattern relating two top-level statements would cross runs; the reader
 * sees that and the file is queried whole).
 */
function queryRuns(root: Node, size: number): QueryRun[] | null {
  if (root.endIndex - root.startIndex <= size) return null;
  const children = root.children;
  const runs: QueryRun[] = [];
  let startRow = 0;
  let start = 0;
  for (let i = 1; i < children.length; i++) {
    const child = children[i]!;
    if (child.startIndex - start < size) continue;
    const row = child.startPosition.row;
    if (children[i - 1]!.endPosition.row >= row) continue;
    const lineStart = child.startIndex - child.startPosition.column;
    runs.push({ startRow, endRow: row, start, end: lineStart });
    startRow = row;
    start = lineStart;
  }
  if (runs.length === 0) return null;
  runs.push({ startRow, endRow: null, start, end: Number.MAX_SAFE_INTEGER });
  return runs;
}

/**
 * The text a tree was parsed from: `text`, or a repaired copy of it (`parseForExtraction`: same
 * length, some line breaks moved), whose lines the tree's positions count.
 */
function parsedText(root: Node, text: string): string {
  const own = root.text;
  if (own === text.slice(root.startIndex, root.endIndex)) return text;
  return text.slice(0, root.startIndex) + own + text.slice(root.endIndex);
}

/** The first `LIMITS.symbols` definitions, and a diagnostic when more were found. */
function capDefinitions(
  ordered: DefinitionDraft[],
): { definitions: DefinitionDraft[]; diagnostics: string[] } {
  if (ordered.length <= LIMITS.symbols) return { definitions: ordered, diagnostics: [] };
  return {
    definitions: ordered.slice(0, LIMITS.symbols),
    diagnostics: [`limit: kept the first ${LIMITS.symbols} of ${ordered.length} definitions`],
  };
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

/** ERROR and MISSING nodes: how many (up to 10,000), their bytes, the first one's line. */
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
