/**
 * What the evidence levels share: a use site, what a name is bound to there, and the small
 * rules every level applies (which kinds own members, which of several same-named
 * definitions is meant).
 */
import { posix } from "node:path";
import { familyRules } from "./families.ts";
import type { ModuleResolver } from "./modules.ts";
import type { ScopeStore } from "./store.ts";
import {
  type Candidate,
  type Evidence,
  EVIDENCE_LEVEL,
  type RelationRecord,
  type Resolution,
  type SymbolRecord,
} from "./types.ts";

/** Where a name is used: the file, the enclosing definition and the line. */
export interface Site {
  repo: string;
  path: string;
  language: string | null;
  from: SymbolRecord | null;
  line: number;
}

/** What a name is bound to at a site. */
export type Binding =
  | { kind: "symbol"; symbol: SymbolRecord; evidence: Evidence; note?: string }
  | { kind: "module"; repo: string; files: string[]; evidence: Evidence; via: string }
  | { kind: "ambiguous"; candidates: Candidate[]; reason: string }
  | { kind: "external"; module: string; reason: string }
  | { kind: "none"; reason: string };

/**
 * What an evidence level may ask of the resolver: the scope's reader, module paths, and the
 * whole resolution of a relation, a name or a member (levels call each other: a member's
 * receiver is a name, a base class is a relation).
 */
export interface Scope {
  readonly store: ScopeStore;
  readonly modules: ModuleResolver;
  resolve(relation: RelationRecord): Resolution;
  bindName(site: Site, name: string): Binding;
  bindMember(site: Site, receiver: string, name: string): Binding;
  /** A member of a class or of its bases, with the evidence of the path to it, or null. */
  memberOf(owner: SymbolRecord, name: string): { symbol: SymbolRecord; evidence: Evidence } | null;
}

/** Kinds whose members are reached through the type (`obj.m`, `self.m`), never as bare names. */
export const CLASS_KINDS = new Set([
  "class",
  "interface",
  "struct",
  "trait",
  "enum",
  "impl",
  "type",
  "object",
  "record",
]);
/** Bound on re-export chains, base-class walks and receiver chains. */
export const MAX_HOPS = 6;

/** The weaker of two evidence levels. */
export function weaker(a: Evidence, b: Evidence): Evidence {
  return EVIDENCE_LEVEL[a] >= EVIDENCE_LEVEL[b] ? a : b;
}

/** A symbol binding whose evidence is at most `evidence`. */
export function through(
  evidence: Evidence,
  found: { symbol: SymbolRecord; evidence: Evidence },
): Binding {
  return { kind: "symbol", symbol: found.symbol, evidence: weaker(evidence, found.evidence) };
}

/** One definition, counting every declaration of an overloaded one as the same. */
export function sameDefinition(a: SymbolRecord, b: SymbolRecord): boolean {
  return a.repo === b.repo &&
    (a.id === b.id || (a.path === b.path && a.qualified === b.qualified && a.kind === b.kind));
}

/** True when same-named definitions are one (overload declarations written one after another). */
export function isOneDefinition(symbols: SymbolRecord[]): boolean {
  if (symbols.length === 1) return true;
  const sorted = [...symbols].sort((a, b) => a.startLine - b.startLine);
  return sorted.every((s, i) =>
    i === 0 ||
    (s.qualified === sorted[0].qualified && s.kind === sorted[0].kind &&
      s.startLine - sorted[i - 1].endLine <= 3)
  );
}

/** Of several same-named definitions, the one with a body (overloads) defined last before `line`. */
export function preferImplementation(symbols: SymbolRecord[], line?: number): SymbolRecord {
  const before = line === undefined ? symbols : symbols.filter((s) => s.startLine <= line);
  const pool = before.length > 0 ? before : symbols;
  return pool.reduce((best, s) =>
    (s.endLine - s.startLine > best.endLine - best.startLine) ||
      (s.endLine - s.startLine === best.endLine - best.startLine && s.startLine > best.startLine)
      ? s
      : best
  );
}

/** The enclosing definitions of a symbol, innermost first (at most 20), read as they are walked. */
export function* ancestorsOf(
  store: ScopeStore,
  from: SymbolRecord | null,
): Generator<SymbolRecord> {
  for (let node = from, hops = 0; node && hops < 20; hops++) {
    yield node;
    node = node.parentId ? store.symbolById(node.repo, node.parentId) : null;
  }
}

/** The directory of a repository path; `""` at the root. */
export function dirOf(path: string): string {
  const dir = posix.dirname(path);
  return dir === "." ? "" : dir;
}

/**
 * True when a definition is at the top level of its file, or only inside namespaces (C#
 * `namespace App { class A }`, C++ `namespace fmt { … }`): a namespace is open, so what it
 * holds is named like a top-level definition of the namespace's other files.
 */
export function isTopLevel(store: ScopeStore, symbol: SymbolRecord): boolean {
  let node: SymbolRecord | null = symbol;
  for (let hops = 0; node?.parentId && hops < 20; hops++) {
    node = store.symbolById(node.repo, node.parentId);
    if (node && node.kind !== "namespace") return false;
  }
  return true;
}

/**
 * True when only uses written in a definition's own file can be resolved to it: it is nested
 * in a function's body (not a method, not a class member), in a family whose methods are not
 * found beside their type. Every way the resolver binds a use in another file — imports,
 * package ownership, a guess by name, a member of a class or of a base (`memberOf` passes over
 * such definitions even when a class names the function as its base) — ends at a top-level
 * definition or a member; only the lexical scope, locals and same-file guesses reach a nested
 * one, and those read the use's own file.
 */
export function fileLocal(store: ScopeStore, symbol: SymbolRecord): boolean {
  if (!symbol.parentId || symbol.kind === "method") return false;
  if (familyRules(symbol.language).methodsBesideType !== null) return false;
  const parent = store.symbolById(symbol.repo, symbol.parentId);
  return parent !== null && (parent.kind === "function" || parent.kind === "method");
}

/** The top-level definitions (namespace members included) named `name` in some files. */
export function topLevelNamed(
  store: ScopeStore,
  options: { repo: string; files: string[]; name: string },
): SymbolRecord[] {
  return options.files.flatMap((file) =>
    store.symbolsInFile(options.repo, file).filter((s) =>
      s.name === options.name && isTopLevel(store, s)
    )
  );
}
