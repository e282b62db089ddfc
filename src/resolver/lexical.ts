/**
 * Evidence level 1, same file and lexical scope: the definitions of the use's file visible
 * from where it stands, and the parameters, locals and type parameters of the enclosing
 * definitions (read from the committed text: locals are not indexed).
 */
import { type BodyDepths, localBinding, mayBindLocally, receiverType } from "./receiver.ts";
import { familyRules } from "./families.ts";
import {
  ancestorsOf,
  CLASS_KINDS,
  isOneDefinition,
  preferImplementation,
  type Scope,
  type Site,
} from "./binding.ts";
import type { Evidence, SymbolRecord } from "./types.ts";

/**
 * A definition of the same file visible from the site's lexical scope: the innermost scope
 * holding the name wins; `guessed` when several same-named ones share it (blocks the index
 * does not model, such as test callbacks or `if` arms) and the nearest preceding was chosen.
 * Where the family has an implicit receiver, an enclosing class's members (and its bases',
 * with the evidence of the base's resolution) are in scope as bare names.
 */
export function lexicalDefinition(
  scope: Scope,
  site: Site,
  name: string,
): { symbol: SymbolRecord; guessed: boolean; evidence?: Evidence } | null {
  const store = scope.store;
  const symbols = store.symbolsInFileNamed(site.repo, site.path, name);
  const implicit = familyRules(site.language).implicitReceiver;
  if (symbols.length === 0 && !implicit) return null;
  const scopes = [...[...ancestorsOf(store, site.from)].map((node) => node.id), null];
  for (const parentId of scopes) {
    const inScope = symbols.filter((s) => s.parentId === parentId);
    if (parentId !== null) {
      const owner = store.symbolById(site.repo, parentId);
      if (owner && CLASS_KINDS.has(owner.kind) && owner.id !== site.from?.id) {
        // Class members are reached through self/this, unless the receiver may be implicit.
        if (!implicit) continue;
        if (inScope.length === 0) {
          const inherited = scope.memberOf(owner, name);
          if (inherited) return { ...inherited, guessed: false };
          continue;
        }
      }
    }
    if (inScope.length === 0) continue;
    if (isOneDefinition(inScope)) {
      return { symbol: preferImplementation(inScope, site.line), guessed: false };
    }
    const before = inScope.filter((s) => s.startLine <= site.line);
    const nearest = before.length > 0
      ? before.reduce((a, b) => (b.startLine > a.startLine ? b : a))
      : inScope.reduce((a, b) => (b.startLine < a.startLine ? b : a));
    return { symbol: nearest, guessed: true };
  }
  return null;
}

/**
 * A parameter or local variable of the function enclosing a site, read from its committed
 * text: a pseudo-definition at its latest binding before the use, or null. A generic type
 * parameter of an enclosing definition counts too.
 */
export function localVariable(scope: Scope, site: Site, name: string): SymbolRecord | null {
  const typeParameter = typeParameterAt(scope, site, name);
  if (typeParameter) return typeParameter;
  const from = site.from;
  if (!from || !(from.kind === "function" || from.kind === "method")) return null;
  const style = familyRules(site.language).locals;
  if (!style) return null;
  if (!scope.store.allowed(site.repo, site.path)) return null;
  // Most names a walk resolves are bound nowhere in their file but by imports: asked once per
  // file and name, then no function of the file is read for them.
  const mayBind = scope.store.derived(
    site.repo,
    `may-bind\0${site.path}\0${style}\0${name}`,
    () => mayBindLocally(style, scope.store.fileText(site.repo, site.path) ?? "", name),
    () => 1,
  );
  if (!mayBind) return null;
  // The function's own lines (a use outside it, e.g. on a decorator, reads the file's).
  const lines = from.startLine <= site.line && site.line <= from.endLine
    ? scope.store.linesOf(site.repo, site.path, from.startLine, from.endLine)
      ?.slice(0, site.line - from.startLine + 1)
    : scope.store.fileLines(site.repo, site.path)?.slice(from.startLine - 1, site.line);
  if (!lines) return null;
  // One function's bracket depths serve every name looked up in it.
  const depths = scope.store.derived(
    site.repo,
    `depths\0${site.path}\0${from.startLine}\0${style}`,
    (): BodyDepths => ({ start: -1, depths: [] }),
    () => from.endLine - from.startLine,
  );
  const found = localBinding({
    style,
    lines,
    name,
    useLineOffset: site.line - from.startLine,
    depths,
  });
  if (!found) return null;
  const line = from.startLine + found.line;
  // A nested definition the index holds (`const Form = () => ...` inside a function) is
  // that definition, not a pseudo-local.
  const indexed = scope.store.symbolsInFile(site.repo, site.path).find((s) =>
    s.name === name && s.startLine === line && s.kind !== "parameter"
  );
  if (indexed) return indexed;
  return pseudoDefinition(site, {
    owner: from,
    name,
    kind: found.parameter ? "parameter" : "local",
    line,
    column: found.column,
  });
}

/** A generic type parameter (`<T extends X>`) of a definition enclosing the site. */
function typeParameterAt(scope: Scope, site: Site, name: string): SymbolRecord | null {
  if (!familyRules(site.language).typeParameters || !/^[A-Za-z_$][\w$]*$/.test(name)) {
    return null;
  }
  const lines = scope.store.fileLines(site.repo, site.path);
  if (lines === null) return null;
  for (const node of ancestorsOf(scope.store, site.from)) {
    const header = lines.slice(node.startLine - 1, Math.min(node.endLine, node.startLine + 15))
      .join("\n");
    const offset = typeParameterOffset(header, node.name, name);
    if (offset === null) continue;
    const before = header.slice(0, offset).split("\n");
    return pseudoDefinition(site, {
      owner: node,
      name,
      kind: "type_parameter",
      line: node.startLine + before.length - 1,
      column: before[before.length - 1].length + 1,
    });
  }
  return null;
}

/** A definition the index does not hold (a parameter, local or type parameter) at a position. */
function pseudoDefinition(
  site: Site,
  options: { owner: SymbolRecord; name: string; kind: string; line: number; column: number },
): SymbolRecord {
  const { owner, name, line, column } = options;
  return {
    repo: site.repo,
    path: site.path,
    language: site.language,
    id: `local:${owner.id}:${name}:${line}`,
    name,
    qualified: `${owner.qualified}.${name}`,
    kind: options.kind,
    startLine: line,
    startCol: column,
    endLine: line,
    endCol: column + name.length,
    signature: null,
    parentId: owner.id,
    exported: false,
  };
}

/** Offset of `name` in the type parameter list that follows `definition` in a header, or null. */
export function typeParameterOffset(
  header: string,
  definition: string,
  name: string,
): number | null {
  const at = new RegExp(`\\b${definition.replace(/\$/g, "\\$")}\\b\\s*(?:=\\s*(?:async\\s*)?)?<`)
    .exec(header);
  if (!at) return null;
  let depth = 0;
  let segmentStart = at.index + at[0].length;
  for (let i = segmentStart - 1; i < header.length; i++) {
    const char = header[i];
    if (char === "<") depth++;
    else if (char === ">" && header[i - 1] !== "=") depth--;
    const ends = depth === 0 || (depth === 1 && char === ",");
    if (ends && i >= segmentStart) {
      const segment = header.slice(segmentStart, i);
      const match = /^\s*(?:(?:in|out|const)\s+)?([A-Za-z_$][\w$]*)/.exec(segment);
      if (match && match[1] === name) return segmentStart + segment.indexOf(name, match.index);
      segmentStart = i + 1;
    }
    if (depth === 0) return null;
  }
  return null;
}

/** The type a local variable or parameter holds at a site, when its text shows it. */
export function localVariableType(scope: Scope, site: Site, variable: string) {
  const style = familyRules(site.language).receivers;
  if (!style) return null;
  const from = site.from;
  const lines = from && from.startLine <= site.line && site.line <= from.endLine
    ? scope.store.linesOf(site.repo, site.path, from.startLine, from.endLine)
      ?.slice(0, site.line - from.startLine + 1)
    : scope.store.fileLines(site.repo, site.path)?.slice(
      (from ? from.startLine : 1) - 1,
      site.line,
    );
  if (!lines) return null;
  return receiverType({
    style,
    variable,
    signature: site.from?.signature ?? null,
    text: lines.join("\n"),
  });
}
