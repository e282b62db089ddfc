/**
 * Definitions → symbols: nesting (which definition owns which), kinds refined by their owner,
 * qualified names by the language's module rule and separators, stable ids, visibility.
 */
import type { Node } from "web-tree-sitter";
import { stableId } from "../engine/hash.ts";
import type { ModuleRoot, SymbolRow } from "./parse_types.ts";
import type { LanguageRules } from "./manifest.ts";
import type { DefinitionDraft } from "./extract_matches.ts";
import { declarationStart, leadingText, type NodeSets, signatureOf } from "./extract_nodes.ts";

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

/** A definition kept as a symbol of the file, with its owner and its nested definitions. */
export interface Definition extends DefinitionDraft {
  parent: Definition | null;
  qualified: string;
  id: string;
  /** 0-based line where its leading comments, decorators and attributes start. */
  chunkStart: number;
  children: Definition[];
}

/** Definitions in source order, outer before inner (equal starts: the longer first). */
export function sourceOrder(drafts: DefinitionDraft[]): DefinitionDraft[] {
  return [...drafts].sort((a, b) => a.start - b.start || b.end - a.end);
}

/**
 * Nests and names definitions given in source order: locals of functions are dropped, a
 * function owned by a class (or with a written owner) is a method, and each kept definition
 * gets its qualified name, id and symbol row.
 */
export function nameDefinitions(
  ordered: DefinitionDraft[],
  options: {
    path: string;
    rules: LanguageRules;
    sets: NodeSets;
    declaredModule: string | null;
    packageRoot?: ModuleRoot | null;
  },
): { definitions: Definition[]; symbols: SymbolRow[] } {
  const { path, rules, sets } = options;
  const module = rules.module === "declared"
    ? scopePath(options.declaredModule ?? "", rules.separator)
    : moduleName(path, rules, options.packageRoot ?? null);
  const stack: Definition[] = [];
  const ordinals = new Map<string, number>();
  const definitions: Definition[] = [];
  const symbols: SymbolRow[] = [];
  for (const draft of ordered) {
    while (
      stack.length > 0 && (stack[stack.length - 1].end <= draft.start ||
        sameNode(stack[stack.length - 1], draft))
    ) {
      stack.pop();
    }
    const parent = stack.length > 0 ? stack[stack.length - 1] : null;
    // Locals of functions are not symbols of the file.
    if (
      parent && CALLABLE_KINDS.has(parent.kind) && !CALLABLE_KINDS.has(draft.kind) &&
      !CLASS_KINDS.has(draft.kind)
    ) continue;
    const owner = scopePath(draft.scope ?? "", rules.separator);
    const kind = draft.kind === "function" &&
        ((parent && METHOD_OWNERS.has(parent.kind)) || owner !== "")
      ? "method"
      : draft.kind;
    const scope = [parent ? parent.qualified : module, owner].filter((s) => s !== "")
      .join(rules.separator);
    const separator = rules.kindSeparators?.[kind] ?? rules.separator;
    const qualified = scope ? `${scope}${separator}${draft.name}` : draft.name;
    const ordinalKey = `${qualified}\0${kind}`;
    const ordinal = ordinals.get(ordinalKey) ?? 0;
    ordinals.set(ordinalKey, ordinal + 1);
    const leading = leadingText(draft.node, sets);
    const definition: Definition = {
      ...draft,
      kind,
      parent,
      qualified,
      id: stableId([path, qualified, kind, ordinal]),
      chunkStart: leading.start,
      children: [],
    };
    if (parent) parent.children.push(definition);
    stack.push(definition);
    definitions.push(definition);
    symbols.push(symbolRow(definition, { rules, sets, doc: definition.doc ?? leading.doc }));
  }
  return { definitions, symbols };
}

function symbolRow(
  def: Definition,
  options: { rules: LanguageRules; sets: NodeSets; doc: string | null },
): SymbolRow {
  const start = declarationStart(def.node, options.sets);
  const endPosition = def.node.endPosition;
  return {
    id: def.id,
    name: def.name,
    qualified_name: def.qualified,
    kind: def.kind,
    start_line: start.row + 1,
    start_col: start.column + 1,
    end_line: endPosition.row + 1,
    end_col: endPosition.column + 1,
    signature: signatureOf(def.node),
    doc: options.doc,
    parent_id: def.parent ? def.parent.id : null,
    exported: isExported(def, options.rules, options.sets),
  };
}

/** Names declared together share their declaration node: they are siblings, not nested. */
export function sameNode(a: DefinitionDraft, b: DefinitionDraft): boolean {
  return a.start === b.start && a.end === b.end;
}

/** How many ancestors up an `export` node still exports a definition (`export const a = …`). */
const EXPORT_DEPTH = 3;

function isExported(def: Definition, rules: LanguageRules, sets: NodeSets): boolean {
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
  // export_keyword: a member is visible unless private (TS `private`, JS `#name`) or local.
  if (def.parent) {
    return def.parent.kind !== "function" && !name.startsWith("#") &&
      !/^\s*(private|protected)\b/.test(def.node.text);
  }
  let node: Node | null = def.node.parent;
  for (let depth = 0; node && depth < EXPORT_DEPTH; depth++, node = node.parent) {
    if (sets.exports.has(node.type)) return true;
  }
  return false;
}

/**
 * The module name of a file: `pkg/sub/mod.py` → `pkg.sub.mod` (relative to its package root:
 * `src/pkg/mod.py` under the root `src` → `pkg.mod`); `src/a.ts` → `src/a` (under the root `src`
 * of the package `@acme/x`: `@acme/x/a`, or the module it is exported as); `src/a/b.rs` → `crate::a::b`
 * (of the crate `serde`: `serde::a::b`); empty for `none` and `declared` (names come from the file).
 */
export function moduleName(
  path: string,
  rules: LanguageRules,
  packageRoot: ModuleRoot | null = null,
): string {
  // A declaration file is named as the module it declares (`index.d.ts` → `index`).
  const withoutExtension = path.replace(/(\.d)?\.[mc]?ts$|\.[^./]+$/, "");
  const under = packageRoot && (packageRoot.dir === "" || path.startsWith(`${packageRoot.dir}/`))
    ? withoutExtension.slice(packageRoot.dir === "" ? 0 : packageRoot.dir.length + 1)
    : null;
  switch (rules.module) {
    case "python": {
      const relative = under ?? withoutExtension;
      return relative.replace(/\/__init__$/, "").replace(/^__init__$/, "").split("/").join(".");
    }
    case "path": {
      if (under === null || !packageRoot?.name) return withoutExtension;
      if (packageRoot.exported !== null) return packageRoot.exported;
      const inner = under.replace(/(^|\/)index$/, "");
      return inner === "" ? packageRoot.name : `${packageRoot.name}/${inner}`;
    }
    case "rust": {
      if (under !== null && packageRoot?.name && !under.startsWith("bin/")) {
        const parts = under.split("/").filter((part) => part !== "mod");
        if (parts.length === 1 && (parts[0] === "lib" || parts[0] === "main")) parts.pop();
        return [packageRoot.name, ...parts].join("::");
      }
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
