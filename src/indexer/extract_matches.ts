/**
 * Query matches → what they describe: definitions (`@definition.<kind>` with `@name`, `@doc`,
 * `@scope`), references (`@reference.<kind>` with `@name`, else named by their own node, and
 * `@receiver`), imports (`@import` with `@import.module|name|alias|wildcard`) and the file's
 * declared module (`@module`).
 */
import type { Node, QueryMatch } from "web-tree-sitter";
import { clip, firstSentence, moduleBefore, ownerText } from "./extract_nodes.ts";

/** A definition as one match describes it, before nesting and naming. */
export interface DefinitionDraft {
  node: Node;
  /** `node.startIndex`, read once. */
  start: number;
  /** `node.endIndex`, read once (each read crosses into wasm). */
  end: number;
  nameNode: Node;
  /** The name: the `@name` text, or several `@name` parts joined by a space (`operator bool`). */
  name: string;
  kind: string;
  doc: string | null;
  /** Explicit owner written at the definition (`func (r *T) M`, `void A::f()`, `function M.f`). */
  scope: string | null;
}

/**
 * A use, import or base-class site: plain values, so the query matches it was read from (and
 * their nodes) can be collected before the next run of the query.
 */
export interface Reference {
  /** Start and end offsets of the site's node. */
  start: number;
  end: number;
  /** 0-based row and column where the node starts (its end's are derived from `end`). */
  startRow: number;
  startColumn: number;
  kind: string;
  name: string;
  receiver: string | null;
  module: string | null;
  alias: string | null;
}

/** Everything the matches of one file describe. */
export interface MatchedFile {
  /** In match order, one per (definition node, name). */
  definitions: DefinitionDraft[];
  /** In match order; each import binding once. */
  references: Reference[];
  /** The `@module` texts joined in source order (Scala `package a.b` then `package c`), or null. */
  declaredModule: string | null;
}

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

/** The captures of one match, by role. */
interface Captures {
  /** The `@definition.*`, `@reference.*` or `@import` node and its capture name. */
  outer: { node: Node; name: string } | null;
  /** `@name` nodes in capture order. */
  names: Node[];
  scope: Node | null;
  modules: Node[];
  receiver: Node | null;
  doc: Node | null;
  importModules: Node[];
  importName: Node | null;
  alias: Node | null;
  wildcard: boolean;
}

/** Reads a file's query matches; `separator` joins module parts. */
export function readMatches(matches: QueryMatch[], separator: string): MatchedFile {
  const reader = new MatchReader(separator, null);
  reader.read(matches, null);
  return reader.result();
}

/** Offsets `[start, end)` of one run of the query, and the root node the query ran on. */
export interface MatchWindow {
  start: number;
  end: number;
  rootId: number;
}

/**
 * Reads the matches of one or more runs of a query over a file, in order, keeping what they
 * describe (definitions, references, imports, the declared module) and nothing of the matches.
 */
export class MatchReader {
  readonly #separator: string;
  readonly #definitions: DefinitionDraft[] = [];
  readonly #references: Reference[] = [];
  /** Two patterns may describe the same import binding; it is stored once. */
  readonly #importKeys = new Set<string>();
  readonly #moduleNodes: Node[] = [];
  readonly #captures = emptyCaptures();
  /** The text the tree was parsed from, when known: a node's text is a slice of it. */
  readonly #source: string | null;

  constructor(separator: string, source: string | null) {
    this.#separator = separator;
    this.#source = source;
  }

  /**
   * Reads matches in order. With a window, a match whose captures all start outside it is
   * skipped (another run reads it); false, with nothing read, when a match has captures both
   * inside and outside the window or captures the root: runs cannot split this file.
   */
  read(matches: QueryMatch[], window: MatchWindow | null): boolean {
    if (window) {
      const inside: QueryMatch[] = [];
      for (const match of matches) {
        const place = placeOf(match, window);
        if (place === "crossing") return false;
        if (place === "inside") inside.push(match);
      }
      matches = inside;
    }
    const captures = this.#captures;
    for (const match of matches) {
      readCaptures(match, captures);
      for (const node of captures.modules) this.#moduleNodes.push(node);
      const outer = captures.outer;
      if (!outer) continue;
      const role = outerRole(outer.name);
      if (role.type === "import") {
        const imported = importOf(outer.node, captures, this.#separator);
        if (imported && !this.#importKeys.has(imported.importKey)) {
          this.#importKeys.add(imported.importKey);
          this.#references.push(imported.reference);
        }
      } else if (role.type === "definition") {
        const definition = definitionOf(outer.node, role.kind, captures);
        if (definition) this.#definitions.push(definition);
      } else {
        const reference = referenceOf(outer.node, role.kind, captures, this.#source);
        if (reference) this.#references.push(reference);
      }
    }
    return true;
  }

  result(): MatchedFile {
    return {
      // One declaration may define several names (`var a, b int`): each is a definition.
      definitions: firstOfEach(
        this.#definitions,
        (d) => `${d.start}:${d.end}:${d.nameNode.startIndex}`,
      ),
      references: this.#references,
      declaredModule: declaredModule(this.#moduleNodes, this.#separator),
    };
  }
}

/** Where a match's captures start relative to a window. */
function placeOf(match: QueryMatch, window: MatchWindow): "inside" | "outside" | "crossing" {
  let inside = 0;
  let outside = 0;
  for (const { node } of match.captures) {
    if (node.id === window.rootId) return "crossing";
    if (node.startIndex >= window.start && node.startIndex < window.end) inside++;
    else outside++;
  }
  return inside > 0 && outside > 0 ? "crossing" : inside > 0 ? "inside" : "outside";
}

/** What an outer capture name (`import`, `definition.<kind>`, `reference.<kind>`) stands for. */
type OuterRole =
  | { type: "import"; kind: "imports" }
  | { type: "definition" | "reference"; kind: string };

const OUTER_ROLES = new Map<string, OuterRole>();

function outerRole(name: string): OuterRole {
  let role = OUTER_ROLES.get(name);
  if (!role) {
    role = name === "import"
      ? { type: "import", kind: "imports" }
      : name.startsWith("definition.")
      ? { type: "definition", kind: name.slice("definition.".length) }
      : {
        type: "reference",
        kind: RELATION_KINDS[name.slice("reference.".length)] ?? "references",
      };
    OUTER_ROLES.set(name, role);
  }
  return role;
}

function emptyCaptures(): Captures {
  return {
    outer: null,
    names: [],
    scope: null,
    modules: [],
    receiver: null,
    doc: null,
    importModules: [],
    importName: null,
    alias: null,
    wildcard: false,
  };
}

/** The captures of one match, by role, into `captures` (reused from match to match). */
function readCaptures(match: QueryMatch, captures: Captures): void {
  captures.outer = null;
  captures.names.length = 0;
  captures.scope = null;
  captures.modules.length = 0;
  captures.receiver = null;
  captures.doc = null;
  captures.importModules.length = 0;
  captures.importName = null;
  captures.alias = null;
  captures.wildcard = false;
  for (const { name, node } of match.captures) {
    if (name === "name") captures.names.push(node);
    else if (name === "scope") captures.scope = node;
    else if (name === "module") captures.modules.push(node);
    else if (name === "receiver") captures.receiver = node;
    else if (name === "doc") captures.doc = node;
    else if (name === "import.module") captures.importModules.push(node);
    else if (name === "import.name") captures.importName = node;
    else if (name === "import.alias") captures.alias = node;
    else if (name === "import.wildcard") captures.wildcard = true;
    else if (
      name === "import" || name.startsWith("definition.") || name.startsWith("reference.")
    ) captures.outer = { node, name };
  }
}

/**
 * The name of a match: the last `@name`, after the parts captured before it in source order
 * (`operator` then `bool` is `operator bool`); `start` is where the joined name starts.
 */
function joinedName(names: Node[]): { node: Node; start: Node; text: string } | null {
  let prefix = "";
  let start: Node | null = null;
  let last: Node | null = null;
  for (const node of names) {
    if (last && last.startIndex < node.startIndex) prefix += `${last.text} `;
    else start = node;
    last = node;
  }
  return last && start ? { node: last, start, text: prefix + last.text } : null;
}

function definitionOf(node: Node, kind: string, captures: Captures): DefinitionDraft | null {
  const name = joinedName(captures.names);
  if (!name || name.node.text === "") return null;
  return {
    node,
    start: node.startIndex,
    end: node.endIndex,
    nameNode: name.node,
    name: name.text,
    kind,
    doc: captures.doc ? firstSentence(captures.doc.text) : null,
    scope: captures.scope ? ownerText(captures.scope, name.start) : null,
  };
}

function referenceOf(
  node: Node,
  kind: string,
  captures: Captures,
  source: string | null,
): Reference | null {
  // A reference pattern without `@name` names its own node (`(identifier) @reference.identifier`):
  // one capture, so one node object, per such match.
  const name = captures.names[captures.names.length - 1] ?? node;
  const start = node.startIndex;
  // Each end offset is a call into the parser's memory: a reference that names its own node
  // has the slice already bounded as its text.
  const end = node.endIndex;
  return {
    start,
    end,
    startRow: node.startPosition.row,
    startColumn: node.startPosition.column,
    kind,
    name: source !== null && name.id === node.id ? source.slice(start, end) : name.text,
    receiver: captures.receiver ? clip(captures.receiver.text, 200) : null,
    module: null,
    alias: null,
  };
}

function importOf(
  node: Node,
  captures: Captures,
  separator: string,
): { reference: Reference; importKey: string } | null {
  if (captures.importModules.length === 0) return null;
  // Nested groups (`use a::{b::{c}}`) capture one module part per level.
  const module = captures.importModules.map((part) =>
    stripQuotes(moduleBefore(part, captures.importName))
  ).join(separator);
  const target = captures.importName ? captures.importName.text : captures.wildcard ? "*" : module;
  const alias = captures.alias ? captures.alias.text : null;
  return {
    reference: {
      start: node.startIndex,
      end: node.endIndex,
      startRow: node.startPosition.row,
      startColumn: node.startPosition.column,
      kind: "imports",
      name: target,
      receiver: null,
      module,
      alias,
    },
    importKey:
      `${node.startIndex}\0${captures.importName?.startIndex}\0${target}\0${module}\0${alias}`,
  };
}

function declaredModule(nodes: Node[], separator: string): string | null {
  const distinct = firstOfEach(nodes, (node) => `${node.startIndex}`);
  if (distinct.length === 0) return null;
  return distinct.sort((a, b) => a.startIndex - b.startIndex).map((node) => node.text)
    .join(separator);
}

/** The items whose key was not seen before, in order; a null key is always kept. */
function firstOfEach<T>(items: T[], keyOf: (item: T) => string | null): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = keyOf(item);
    if (key === null) return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function stripQuotes(text: string): string {
  return text.replace(/^['"`]|['"`]$/g, "");
}
