/**
 * The resolver (SPEC §9): what one stored relation means, decided at query
 * time over the caller's scope, evidence applied in order — same file and
 * lexical scope; import bindings; module-path ownership; one unique definition.
 * Nothing it decides is ever written back.
 */
import { posix } from "node:path";
import { attributeType, localBinding, receiverType } from "./receiver.ts";
import type { ModuleResolver } from "./modules.ts";
import type { ScopeStore } from "./store.ts";
import {
  type Candidate,
  type Evidence,
  EVIDENCE_LEVEL,
  languageFamily,
  type RelationRecord,
  type Resolution,
  type SymbolRecord,
} from "./types.ts";

const CLASS_KINDS = new Set([
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
const SELF_NAMES = new Set(["self", "this", "cls", "Self"]);
/** Bound on re-export chains and base-class walks. */
const MAX_HOPS = 6;

/** Where a name is used: the file, the enclosing definition and the line. */
export interface Site {
  repo: string;
  path: string;
  language: string | null;
  from: SymbolRecord | null;
  line: number;
}

/** What a name is bound to at a site. */
type Binding =
  | { kind: "symbol"; symbol: SymbolRecord; evidence: Evidence; note?: string }
  | { kind: "module"; repo: string; files: string[]; evidence: Evidence; via: string }
  | { kind: "ambiguous"; candidates: Candidate[]; reason: string }
  | { kind: "external"; module: string; reason: string }
  | { kind: "none"; reason: string };

/** The weaker of two evidence levels. */
function weaker(a: Evidence, b: Evidence): Evidence {
  return EVIDENCE_LEVEL[a] >= EVIDENCE_LEVEL[b] ? a : b;
}

export class Resolver {
  readonly store: ScopeStore;
  readonly modules: ModuleResolver;
  readonly #cache = new Map<string, Resolution>();
  #memberDepth = 0;

  constructor(store: ScopeStore, modules: ModuleResolver) {
    this.store = store;
    this.modules = modules;
  }

  /** The definition one relation means, or why none can be named. */
  resolve(relation: RelationRecord): Resolution {
    const key =
      `${relation.repo}\0${relation.path}\0${relation.startLine}:${relation.startCol}\0${relation.kind}\0${relation.target}\0${relation.receiver}`;
    let resolution = this.#cache.get(key);
    if (!resolution) {
      resolution = this.#resolveUncached(relation);
      this.#cache.set(key, resolution);
    }
    return resolution;
  }

  /** The site of a relation. */
  siteOf(relation: RelationRecord): Site {
    const from = relation.fromSymbol
      ? this.store.symbolById(relation.repo, relation.fromSymbol)
      : null;
    return {
      repo: relation.repo,
      path: relation.path,
      language: relation.language,
      from,
      line: relation.startLine,
    };
  }

  #resolveUncached(relation: RelationRecord): Resolution {
    const site = this.siteOf(relation);
    if (relation.kind === "imports") return this.#resolveImport(site, relation);
    let target = relation.target;
    let receiver = relation.receiver;
    // Qualified names written whole (`typing.List`, `ns.T`, `a::b::f`) split into receiver + name.
    if (!receiver) {
      const split = /^(.*?)(?:\.|::)([^.:]+)$/.exec(target);
      if (split && split[1]) (receiver = split[1], target = split[2]);
    }
    const binding = receiver === null
      ? this.#bindName(site, target, relation.kind === "calls")
      : this.#bindMember(site, receiver, target);
    return this.#toResolution(binding);
  }

  #toResolution(binding: Binding): Resolution {
    switch (binding.kind) {
      case "symbol":
        return {
          status: "resolved",
          symbol: binding.symbol,
          evidence: binding.evidence,
          ...(binding.note ? { note: binding.note } : {}),
        };
      case "module":
        return {
          status: "unresolved",
          reason: `names a module (${binding.via}), not a definition`,
          ...(binding.files.length === 1
            ? {
              moduleFile: {
                repo: binding.repo,
                path: binding.files[0],
                evidence: binding.evidence,
              },
            }
            : {}),
        };
      case "ambiguous":
        return { status: "ambiguous", candidates: binding.candidates, reason: binding.reason };
      case "external":
        return { status: "external", module: binding.module, reason: binding.reason };
      case "none":
        return { status: "unresolved", reason: binding.reason };
    }
  }

  /** An import relation resolves to the definition it imports (or fails as external). */
  #resolveImport(site: Site, relation: RelationRecord): Resolution {
    if (!relation.module) return { status: "unresolved", reason: "import without a module" };
    const target = this.modules.resolve(site, relation.module);
    if (target.status === "external") {
      return { status: "external", module: relation.module, reason: target.reason };
    }
    if (relation.target === "*" || relation.target === relation.module) {
      return { status: "unresolved", reason: `imports the module '${relation.module}'` };
    }
    const found = this.#exported(target.repo, target.files, relation.target, 0);
    if (found.kind === "symbol") {
      return {
        status: "resolved",
        symbol: found.symbol,
        evidence: weaker("import", found.evidence),
      };
    }
    return this.#toResolution(found);
  }

  /** A bare name at a site (evidence 1 → 4). */
  bindName(site: Site, name: string): Binding {
    return this.#bindName(site, name, false);
  }

  #bindName(site: Site, name: string, isCall: boolean): Binding {
    // 1. Same file and lexical scope.
    // 0. A parameter or local variable of the enclosing function shadows everything else.
    const variable = this.localVariable(site, name);
    if (variable && !variable.id.startsWith("local:")) {
      // An indexed nested definition: a guess when same-named ones share its scope (blocks).
      const siblings = this.store.symbolsInFile(site.repo, site.path).filter((s) =>
        s.name === name && s.parentId === variable.parentId
      );
      if (!isOneDefinition(siblings)) {
        return {
          kind: "symbol",
          symbol: variable,
          evidence: "unique_name",
          note:
            `several definitions named '${name}' in this scope; the nearest preceding one was chosen`,
        };
      }
    }
    if (variable) return { kind: "symbol", symbol: variable, evidence: "same_file" };
    const local = this.#lexical(site, name);
    if (local && !local.guessed) {
      return { kind: "symbol", symbol: local.symbol, evidence: "same_file" };
    }
    if (local) {
      return {
        kind: "symbol",
        symbol: local.symbol,
        evidence: "unique_name",
        note:
          `several definitions named '${name}' in this file; the nearest preceding one was chosen`,
      };
    }
    // 2. Import bindings of the file.
    const imported = this.#importBinding(site, name);
    if (imported) return imported;
    // 3. Module-path ownership: the file's own package (Go, JVM) owns the name.
    const owned = this.#packageOwned(site, name);
    if (owned) return owned;
    // 4. One unique definition across the scope.
    return this.#unique(site, name, { members: false, constructorCall: isCall });
  }

  /** `receiver.name` at a site. */
  #bindMember(site: Site, receiver: string, name: string): Binding {
    // Types written in terms of themselves (`x = x.make()`) must not loop.
    if (this.#memberDepth >= MAX_HOPS) {
      return { kind: "none", reason: `receiver chain deeper than ${MAX_HOPS}` };
    }
    this.#memberDepth++;
    try {
      return this.#bindMemberOnce(site, receiver, name);
    } finally {
      this.#memberDepth--;
    }
  }

  #bindMemberOnce(site: Site, receiver: string, name: string): Binding {
    const family = languageFamily(site.language);
    const root = receiver.replace(/\(\)$/, "");
    if (SELF_NAMES.has(root) || root === "super") {
      const owner = this.#enclosingClass(site.from);
      if (!owner) return this.#unique(site, name, { members: true, receiver });
      const start = root === "super"
        ? this.#bases(owner)
        : [{ symbol: owner, evidence: "same_file" as Evidence }];
      for (const base of start) {
        const member = this.#member(base.symbol, name, 0);
        if (member) {
          return {
            kind: "symbol",
            symbol: member.symbol,
            evidence: weaker(base.evidence, member.evidence),
          };
        }
      }
      // Defined in a subclass or mixin only: dynamic dispatch, guessed by name.
      const guess = this.#unique(site, name, { members: true, receiver });
      return guess;
    }
    const constructed = calleeOfCall(receiver);
    if (constructed && root !== "super") {
      // `Client().get()`, `new api.Client().get()`: a member of the class the call constructs.
      const parts = constructed.split(/\.|::/);
      const binding = parts.length === 1
        ? this.#bindName(site, constructed, true)
        : this.#bindMember(site, parts.slice(0, -1).join("."), parts[parts.length - 1]);
      if (binding.kind === "symbol" && CLASS_KINDS.has(binding.symbol.kind)) {
        const member = this.#member(binding.symbol, name, 0);
        if (member) {
          return {
            kind: "symbol",
            symbol: member.symbol,
            evidence: weaker(binding.evidence, member.evidence),
          };
        }
      }
      if (binding.kind === "external") return binding;
      return this.#unique(site, name, { members: true, receiver });
    }
    const attribute = /^(self|this)\.([A-Za-z_$][\w$]*)$/.exec(receiver);
    if (attribute) {
      const owner = this.#enclosingClass(site.from);
      const type = owner ? this.#attributeTypeOf(owner, attribute[2], family) : null;
      if (type) {
        const viaType = this.#memberOfTypeName(site, type.name, name, type.constructed);
        if (viaType) return viaType;
      }
      return this.#unique(site, name, { members: true, receiver });
    }
    if (/^[A-Za-z_$][\w$]*$/.test(root)) {
      const lexical = this.#lexical(site, root);
      const bound = lexical?.symbol ?? null;
      if (lexical) {
        const viaSymbol = this.#memberOfSymbol(
          lexical.symbol,
          lexical.guessed ? "unique_name" : "same_file",
          name,
        );
        if (viaSymbol) return viaSymbol;
      }
      const imported = this.#importBinding(site, root);
      if (imported) {
        if (imported.kind === "module") {
          const found = this.#exported(imported.repo, imported.files, name, 0);
          if (found.kind === "symbol") {
            return {
              kind: "symbol",
              symbol: found.symbol,
              evidence: weaker(imported.evidence, found.evidence),
            };
          }
          // `from pkg import mod` then `mod.f()`: a submodule of a package.
          return found.kind === "none"
            ? { kind: "none", reason: `'${name}' is not defined in ${imported.via}` }
            : found;
        }
        if (imported.kind === "symbol") {
          const viaSymbol = this.#memberOfSymbol(imported.symbol, imported.evidence, name);
          if (viaSymbol) return viaSymbol;
        }
        if (imported.kind === "external") return imported;
      }
      const local = this.#localVariableType(site, root);
      if (local) {
        const viaType = this.#memberOfTypeName(site, local.name, name, local.constructed);
        if (viaType) return viaType;
      }
      if (!bound && !imported) {
        const owned = this.#packageOwned(site, root);
        if (owned?.kind === "symbol") {
          const viaSymbol = this.#memberOfSymbol(owned.symbol, owned.evidence, name);
          if (viaSymbol) return viaSymbol;
        }
      }
      return this.#unique(site, name, { members: true, receiver });
    }
    // A dotted receiver: a module path (`os.path`, `pkg.mod`, `crate::a`) or a chain.
    const dotted = /^[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)+$/.test(root);
    if (dotted) {
      const viaModule = this.#dottedModule(site, root, name);
      if (viaModule) return viaModule;
    }
    return this.#unique(site, name, { members: true, receiver });
  }

  /** A module written as a dotted path at a site, then `name` in it. */
  #dottedModule(site: Site, receiver: string, name: string): Binding | null {
    const family = languageFamily(site.language);
    const separator = receiver.includes("::") ? "::" : ".";
    const first = receiver.split(separator)[0];
    if (family === "rust" && ["crate", "self", "super"].includes(first)) {
      const target = this.modules.resolve(site, receiver);
      if (target.status === "found") {
        const found = this.#exported(target.repo, target.files, name, 0);
        if (found.kind === "symbol") {
          return { ...found, evidence: weaker("module_path", found.evidence) };
        }
      }
      return null;
    }
    const imports = this.store.importsOfFile(site.repo, site.path);
    // `import a.b` then `a.b.f()`.
    const direct = imports.find((i) => i.module === receiver && i.alias === null);
    const firstBinding = this.#importBinding(site, first);
    if (!direct && !firstBinding) return null;
    if (firstBinding?.kind === "external" && !direct) return firstBinding;
    const modulePath = direct
      ? receiver
      : firstBinding?.kind === "module"
      ? `${this.#bindingModule(site, first) ?? first}${receiver.slice(first.length)}`
      : receiver;
    const target = this.modules.resolve(site, modulePath);
    if (target.status === "external") {
      return { kind: "external", module: modulePath, reason: target.reason };
    }
    const found = this.#exported(target.repo, target.files, name, 0);
    if (found.kind === "symbol") {
      return { ...found, evidence: weaker("module_path", found.evidence) };
    }
    return found.kind === "none" ? null : found;
  }

  #bindingModule(site: Site, name: string): string | null {
    for (const i of this.store.importsOfFile(site.repo, site.path)) {
      if (i.alias === name && i.module) {
        return i.module === i.target || i.target === "*" ? i.module : `${i.module}.${i.target}`;
      }
      if (i.alias === null && i.module === name) return name;
    }
    return null;
  }

  /** The member `name` reached through a symbol used as a receiver (a class, or a typed variable). */
  #memberOfSymbol(
    symbol: SymbolRecord,
    evidence: Evidence,
    name: string,
  ): Binding | null {
    if (CLASS_KINDS.has(symbol.kind)) {
      const member = this.#member(symbol, name, 0);
      if (member) {
        return {
          kind: "symbol",
          symbol: member.symbol,
          evidence: weaker(evidence, member.evidence),
        };
      }
      return null;
    }
    // A module-level variable whose signature shows its type: `const client = new Client()`.
    const family = languageFamily(symbol.language);
    const type = symbol.signature
      ? receiverType({ family, variable: symbol.name, signature: null, text: symbol.signature })
      : null;
    if (!type) return null;
    const declSite: Site = {
      repo: symbol.repo,
      path: symbol.path,
      language: symbol.language,
      from: null,
      line: symbol.startLine,
    };
    const viaType = this.#memberOfTypeName(declSite, type.name, name, type.constructed);
    if (viaType?.kind === "symbol") {
      return { ...viaType, evidence: weaker(evidence, viaType.evidence) };
    }
    return null;
  }

  /** The member `name` of the class a type name denotes at a site. */
  #memberOfTypeName(
    site: Site,
    typeName: string,
    name: string,
    constructed: boolean,
  ): Binding | null {
    const parts = typeName.split(".");
    let binding: Binding;
    if (parts.length > 1) {
      binding = this.#bindMember(site, parts.slice(0, -1).join("."), parts[parts.length - 1]);
    } else {
      binding = this.#bindName(site, typeName, false);
    }
    if (binding.kind !== "symbol") return null;
    if (!CLASS_KINDS.has(binding.symbol.kind)) {
      // `x = make()` is a call, not a construction: its type is not evident.
      return null;
    }
    void constructed;
    const member = this.#member(binding.symbol, name, 0);
    if (!member) return null;
    return {
      kind: "symbol",
      symbol: member.symbol,
      evidence: weaker(binding.evidence, member.evidence),
    };
  }

  /** The members of base classes and interfaces that a method overrides or implements. */
  overridden(method: SymbolRecord): SymbolRecord[] {
    if (!method.parentId || method.name === "constructor" || method.name === "__init__") return [];
    const owner = this.store.symbolById(method.repo, method.parentId);
    if (!owner || !CLASS_KINDS.has(owner.kind)) return [];
    const out: SymbolRecord[] = [];
    for (const base of this.#bases(owner)) {
      const member = this.#member(base.symbol, method.name, 0);
      if (member && member.symbol.id !== method.id) out.push(member.symbol);
    }
    return out;
  }

  /** A member of a class or one of its bases. */
  #member(
    owner: SymbolRecord,
    name: string,
    hops: number,
  ): { symbol: SymbolRecord; evidence: Evidence } | null {
    if (hops > MAX_HOPS) return null;
    const own = this.store.childrenOf(owner).filter((s) => s.name === name);
    if (own.length > 0) return { symbol: preferImplementation(own), evidence: "same_file" };
    // Go methods and Rust impls live beside the type, not inside it.
    const family = languageFamily(owner.language);
    if (family === "go" || family === "rust") {
      const files = family === "go"
        ? this.modules.goPackageFiles(owner.repo, dirOf(owner.path))
        : [owner.path];
      for (const file of files) {
        const methods = this.store.symbolsInFile(owner.repo, file).filter((s) =>
          s.name === name && (s.kind === "method" || s.kind === "function") &&
          receiverOwner(s, owner, this.store)
        );
        if (methods.length > 0) {
          return {
            symbol: methods[0],
            evidence: file === owner.path ? "same_file" : "module_path",
          };
        }
      }
    }
    for (const base of this.#bases(owner)) {
      const found = this.#member(base.symbol, name, hops + 1);
      if (found) return { symbol: found.symbol, evidence: weaker(base.evidence, found.evidence) };
    }
    return null;
  }

  /** The resolved base classes and interfaces of a class. */
  #bases(owner: SymbolRecord): { symbol: SymbolRecord; evidence: Evidence }[] {
    const out: { symbol: SymbolRecord; evidence: Evidence }[] = [];
    for (const relation of this.store.relationsFrom(owner)) {
      if (relation.kind !== "inherits" && relation.kind !== "implements") continue;
      const resolution = this.resolve(relation);
      if (resolution.status === "resolved" && resolution.symbol.id !== owner.id) {
        out.push({ symbol: resolution.symbol, evidence: resolution.evidence });
      }
    }
    return out;
  }

  #enclosingClass(from: SymbolRecord | null): SymbolRecord | null {
    for (let node = from, hops = 0; node && hops < 20; hops++) {
      if (CLASS_KINDS.has(node.kind)) return node;
      node = node.parentId ? this.store.symbolById(node.repo, node.parentId) : null;
    }
    // A Go method's receiver type, or a Rust impl's type, is its class.
    if (from && (from.kind === "method" || from.kind === "function")) {
      const family = languageFamily(from.language);
      if (family === "go") {
        const match = /^func\s*\(\s*\w*\s*\*?\s*([A-Za-z_]\w*)/.exec(from.signature ?? "");
        if (match) {
          const types = this.modules.goPackageFiles(from.repo, dirOf(from.path)).flatMap((file) =>
            this.store.symbolsInFile(from.repo, file)
          ).filter((s) => s.name === match[1] && CLASS_KINDS.has(s.kind));
          if (types.length > 0) return types[0];
        }
      }
    }
    return null;
  }

  #attributeTypeOf(owner: SymbolRecord, attribute: string, family: string) {
    const field = this.store.childrenOf(owner).find((s) => s.name === attribute);
    const text = this.store.fileText(owner.repo, owner.path) ?? "";
    const classText = text.split("\n").slice(owner.startLine - 1, owner.endLine).join("\n");
    return attributeType({
      family,
      attribute,
      classText,
      fieldSignature: field?.signature ?? null,
    });
  }

  #localVariableType(site: Site, variable: string) {
    const text = this.store.fileText(site.repo, site.path);
    if (text === null) return null;
    const start = site.from ? site.from.startLine : 1;
    const lines = text.split("\n").slice(start - 1, site.line);
    return receiverType({
      family: languageFamily(site.language),
      variable,
      signature: site.from?.signature ?? null,
      text: lines.join("\n"),
    });
  }

  /**
   * A parameter or local variable of the function enclosing a site, read from its
   * committed text (locals are not indexed): a pseudo-definition at its latest
   * binding before the use, or null.
   */
  localVariable(site: Site, name: string): SymbolRecord | null {
    const typeParameter = this.#typeParameter(site, name);
    if (typeParameter) return typeParameter;
    const from = site.from;
    if (!from || !(from.kind === "function" || from.kind === "method")) return null;
    const text = this.store.fileText(site.repo, site.path);
    if (text === null) return null;
    const found = localBinding({
      family: languageFamily(site.language),
      lines: text.split("\n").slice(from.startLine - 1, site.line),
      name,
      useLineOffset: site.line - from.startLine,
    });
    if (!found) return null;
    const line = from.startLine + found.line;
    // A nested definition the index holds (`const Form = () => ...` inside a function) is
    // that definition, not a pseudo-local.
    const indexed = this.store.symbolsInFile(site.repo, site.path).find((s) =>
      s.name === name && s.startLine === line && s.kind !== "parameter"
    );
    if (indexed) return indexed;
    return {
      repo: site.repo,
      path: site.path,
      language: site.language,
      id: `local:${from.id}:${name}:${line}`,
      name,
      qualified: `${from.qualified}.${name}`,
      kind: found.parameter ? "parameter" : "local",
      startLine: line,
      startCol: found.column,
      endLine: line,
      endCol: found.column + name.length,
      signature: null,
      parentId: from.id,
      exported: false,
    };
  }

  /** A generic type parameter (`<T extends X>`) of a definition enclosing the site. */
  #typeParameter(site: Site, name: string): SymbolRecord | null {
    if (languageFamily(site.language) !== "js" || !/^[A-Za-z_$][\w$]*$/.test(name)) return null;
    const text = this.store.fileText(site.repo, site.path);
    if (text === null) return null;
    const lines = text.split("\n");
    for (let node = site.from, hops = 0; node && hops < 20; hops++) {
      const header = lines.slice(node.startLine - 1, Math.min(node.endLine, node.startLine + 15));
      const offset = typeParameterOffset(header.join("\n"), node.name, name);
      if (offset !== null) {
        const before = header.join("\n").slice(0, offset).split("\n");
        const line = node.startLine + before.length - 1;
        const column = before[before.length - 1].length + 1;
        return {
          repo: site.repo,
          path: site.path,
          language: site.language,
          id: `local:${node.id}:${name}:${line}`,
          name,
          qualified: `${node.qualified}.${name}`,
          kind: "type_parameter",
          startLine: line,
          startCol: column,
          endLine: line,
          endCol: column + name.length,
          signature: null,
          parentId: node.id,
          exported: false,
        };
      }
      node = node.parentId ? this.store.symbolById(node.repo, node.parentId) : null;
    }
    return null;
  }

  /** Level 1: a definition of the same file visible from the site's lexical scope. */
  #lexical(site: Site, name: string): { symbol: SymbolRecord; guessed: boolean } | null {
    const symbols = this.store.symbolsInFile(site.repo, site.path).filter((s) => s.name === name);
    if (symbols.length === 0) return null;
    const ancestors: (string | null)[] = [];
    for (let node = site.from, hops = 0; node && hops < 20; hops++) {
      ancestors.push(node.id);
      node = node.parentId ? this.store.symbolById(node.repo, node.parentId) : null;
    }
    ancestors.push(null);
    for (const scope of ancestors) {
      const inScope = symbols.filter((s) => s.parentId === scope);
      if (inScope.length === 0) continue;
      if (scope !== null) {
        const owner = this.store.symbolById(site.repo, scope);
        // Class members are reached through self/this, never as bare names.
        if (owner && CLASS_KINDS.has(owner.kind) && owner.id !== site.from?.id) continue;
      }
      if (isOneDefinition(inScope)) {
        return { symbol: preferImplementation(inScope, site.line), guessed: false };
      }
      // Same-named definitions in blocks the index does not model (test callbacks, `if` arms):
      // the nearest preceding one is a guess.
      const before = inScope.filter((s) => s.startLine <= site.line);
      const nearest = before.length > 0
        ? before.reduce((a, b) => (b.startLine > a.startLine ? b : a))
        : inScope.reduce((a, b) => (b.startLine < a.startLine ? b : a));
      return { symbol: nearest, guessed: true };
    }
    return null;
  }

  /** Level 2: what an import of the site's file binds to `name`. */
  #importBinding(site: Site, name: string): Binding | null {
    const imports = this.store.importsOfFile(site.repo, site.path);
    const family = languageFamily(site.language);
    const explicit = imports.filter((i) =>
      i.alias === name ||
      (i.alias === null && i.target === name && i.target !== i.module) ||
      (i.alias === null && i.module !== null && i.target === i.module &&
        importedModuleName(i.module, family) === name)
    );
    for (const binding of explicit) {
      if (!binding.module) continue;
      const namespace = binding.target === "*" || binding.target === binding.module;
      // `import a.b` binds `a` in Python.
      const spec = family === "python" && namespace && binding.alias === null
        ? name
        : binding.module;
      const target = this.modules.resolve(site, spec);
      if (target.status === "external") {
        return { kind: "external", module: spec, reason: target.reason };
      }
      if (namespace) {
        // `import * as ns`, `import mod`, a Go import, or a JS default import.
        if (family === "js" && binding.target === binding.module && binding.alias !== null) {
          const fallback = this.#defaultExport(target.repo, target.files);
          if (fallback) return { kind: "symbol", symbol: fallback, evidence: "import" };
        }
        return {
          kind: "module",
          repo: target.repo,
          files: target.files,
          evidence: "import",
          via: target.via,
        };
      }
      const found = this.#exported(target.repo, target.files, binding.target, 0);
      if (found.kind === "symbol") return { ...found, evidence: weaker("import", found.evidence) };
      if (found.kind === "none" && family === "python") {
        // `from pkg import mod`: the name is a submodule.
        const sub = this.modules.resolve(
          site,
          /^\.+$/.test(binding.module)
            ? `${binding.module}${binding.target}`
            : `${binding.module}.${binding.target}`,
        );
        if (sub.status === "found") {
          return {
            kind: "module",
            repo: sub.repo,
            files: sub.files,
            evidence: "import",
            via: sub.via,
          };
        }
      }
      return found.kind === "none"
        ? {
          kind: "none",
          reason: `'${binding.target}' is not defined in '${binding.module}' (${target.via})`,
        }
        : found;
    }
    // Wildcard imports: `from m import *`, `export * from "m"`.
    for (const binding of imports.filter((i) => i.target === "*" && i.alias === null && i.module)) {
      const target = this.modules.resolve(site, binding.module!);
      if (target.status !== "found") continue;
      const found = this.#exported(target.repo, target.files, name, 0);
      if (found.kind === "symbol") return { ...found, evidence: weaker("import", found.evidence) };
    }
    return null;
  }

  /** A top-level definition of a module's files, following re-exports. */
  #exported(repo: string, files: string[], name: string, hops: number): Binding {
    const found: SymbolRecord[] = [];
    for (const file of files) {
      found.push(
        ...this.store.symbolsInFile(repo, file).filter((s) =>
          s.name === name && s.parentId === null
        ),
      );
    }
    if (found.length > 0) {
      return { kind: "symbol", symbol: preferImplementation(found), evidence: "same_file" };
    }
    if (hops >= MAX_HOPS) {
      return { kind: "none", reason: `re-export chain longer than ${MAX_HOPS}` };
    }
    // `export { Local as name }` without a source renames a definition of the same file.
    for (const file of files) {
      const text = this.store.fileText(repo, file) ?? "";
      const renamed = new RegExp(
        `export\\s*(?:type\\s*)?\\{[^}]*?\\b([A-Za-z_$][\\w$]*)\\s+as\\s+${
          name.replace(/\$/g, "\\$")
        }\\b[^}]*\\}(?!\\s*from)`,
      ).exec(text);
      if (!renamed) continue;
      const local = this.store.symbolsInFile(repo, file).filter((s) =>
        s.name === renamed[1] && s.parentId === null
      );
      if (local.length > 0) {
        return { kind: "symbol", symbol: preferImplementation(local), evidence: "same_file" };
      }
    }
    for (const file of files) {
      const probe = this.store.symbolsInFile(repo, file)[0];
      const language = probe?.language ?? languageOfPath(file);
      const site: Site = { repo, path: file, language, from: null, line: 1 };
      for (const relation of this.store.importsOfFile(repo, file)) {
        if (!relation.module) continue;
        const bindsName = relation.alias === name ||
          (relation.alias === null && relation.target === name);
        const wildcard = relation.target === "*" && relation.alias === null;
        if (!bindsName && !wildcard) continue;
        const target = this.modules.resolve(site, relation.module);
        if (target.status === "external") {
          if (bindsName) {
            return { kind: "external", module: relation.module, reason: target.reason };
          }
          continue;
        }
        const inner = this.#exported(
          target.repo,
          target.files,
          bindsName ? relation.target : name,
          hops + 1,
        );
        if (inner.kind === "symbol") return { ...inner, evidence: "import" };
        if (
          bindsName && relation.target === relation.module && languageFamily(language) === "python"
        ) {
          continue;
        }
      }
    }
    return { kind: "none", reason: `'${name}' is not defined in ${files.join(", ")}` };
  }

  #defaultExport(repo: string, files: string[]): SymbolRecord | null {
    for (const file of files) {
      const text = this.store.fileText(repo, file) ?? "";
      const match =
        /export\s+default\s+(?:abstract\s+)?(?:async\s+)?(?:function\*?|class)?\s*([A-Za-z_$][\w$]*)/
          .exec(text);
      if (!match) continue;
      const found = this.store.symbolsInFile(repo, file).filter((s) =>
        s.name === match[1] && s.parentId === null
      );
      if (found.length > 0) return found[0];
    }
    return null;
  }

  /** Level 3: the site's own package owns the name (Go package, JVM package: other files of the directory). */
  #packageOwned(site: Site, name: string): Binding | null {
    const family = languageFamily(site.language);
    if (!["go", "java", "kotlin", "scala", "csharp"].includes(family)) return null;
    const dir = dirOf(site.path);
    const files = family === "go"
      ? this.modules.goPackageFiles(site.repo, dir)
      : [...this.store.paths(site.repo)].filter((p) =>
        dirOf(p) === dir && languageOfPath(p) === site.language
      );
    const found: SymbolRecord[] = [];
    for (const file of files) {
      if (file === site.path) continue;
      found.push(
        ...this.store.symbolsInFile(site.repo, file).filter((s) =>
          s.name === name && s.parentId === null
        ),
      );
    }
    if (found.length === 0) return null;
    return { kind: "symbol", symbol: found[0], evidence: "module_path" };
  }

  /** Level 4: one definition with this name across the scope, else candidates. */
  #unique(
    site: Site,
    name: string,
    options: { members: boolean; receiver?: string; constructorCall?: boolean },
  ): Binding {
    const family = languageFamily(site.language);
    const scope = this.store.scopeOf(site.repo);
    const all = this.store.symbolsNamed(scope, name).filter((s) =>
      languageFamily(s.language) === family && s.kind !== "variable" && s.kind !== "constant" &&
      s.kind !== "field" && s.kind !== "property"
    );
    const fitting = all.filter((s) => {
      const parent = s.parentId ? this.store.symbolById(s.repo, s.parentId) : null;
      const isMember = (parent !== null && CLASS_KINDS.has(parent.kind)) ||
        (s.kind === "method");
      if (options.members) return isMember;
      return !isMember && (parent === null || s.path === site.path);
    });
    // One definition with several declarations (overload signatures) is one symbol.
    const distinct = new Map<string, SymbolRecord>();
    for (const s of fitting) {
      const key = `${s.repo}\0${s.path}\0${s.qualified}`;
      const seen = distinct.get(key);
      if (!seen || s.endLine - s.startLine > seen.endLine - seen.startLine) distinct.set(key, s);
    }
    const symbols = [...distinct.values()];
    const what = options.receiver ? `'${options.receiver}.${name}'` : `'${name}'`;
    if (symbols.length === 1) {
      const note = options.receiver
        ? `the type of '${options.receiver}' is not statically evident; matched by name`
        : "matched by name: no import or same-file definition names it";
      return { kind: "symbol", symbol: symbols[0], evidence: "unique_name", note };
    }
    if (symbols.length === 0) {
      return { kind: "none", reason: `no definition of ${what} in scope` };
    }
    return {
      kind: "ambiguous",
      reason: `${symbols.length} definitions of ${what} in scope and no evidence chooses one`,
      candidates: symbols.map((symbol) => ({
        symbol,
        reason: options.receiver
          ? `a ${symbol.kind} named '${name}' in ${symbol.repo}:${symbol.path}; the type of '${options.receiver}' is not statically evident`
          : `a ${symbol.kind} named '${name}' in ${symbol.repo}:${symbol.path}; no import binds '${name}' at the use`,
      })),
    };
  }
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

/** True when same-named definitions are one (overload declarations written one after another). */
function isOneDefinition(symbols: SymbolRecord[]): boolean {
  if (symbols.length === 1) return true;
  const sorted = [...symbols].sort((a, b) => a.startLine - b.startLine);
  return sorted.every((s, i) =>
    i === 0 ||
    (s.qualified === sorted[0].qualified && s.kind === sorted[0].kind &&
      s.startLine - sorted[i - 1].endLine <= 3)
  );
}

/** Of several same-named definitions, the one with a body (overloads) defined last before `line`. */
function preferImplementation(symbols: SymbolRecord[], line?: number): SymbolRecord {
  const before = line === undefined ? symbols : symbols.filter((s) => s.startLine <= line);
  const pool = before.length > 0 ? before : symbols;
  return pool.reduce((best, s) =>
    (s.endLine - s.startLine > best.endLine - best.startLine) ||
      (s.endLine - s.startLine === best.endLine - best.startLine && s.startLine > best.startLine)
      ? s
      : best
  );
}

/** True when a Go method's receiver (or a Rust impl's type) is `owner`. */
function receiverOwner(method: SymbolRecord, owner: SymbolRecord, store: ScopeStore): boolean {
  if (method.parentId) {
    const parent = store.symbolById(method.repo, method.parentId);
    if (parent && parent.name === owner.name) return true;
    if (parent && parent.id === owner.id) return true;
  }
  const match = /^func\s*\(\s*\w*\s*\*?\s*([A-Za-z_]\w*)/.exec(method.signature ?? "");
  return match !== null && match[1] === owner.name;
}

/** The callee of a receiver that is a call (`a.B(x)`, `new B()`), or null. */
function calleeOfCall(receiver: string): string | null {
  const text = receiver.trim().replace(/^new\s+/, "");
  if (!text.endsWith(")")) return null;
  let depth = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    if (text[i] === ")") depth++;
    else if (text[i] === "(") {
      depth--;
      if (depth === 0) {
        const callee = text.slice(0, i).trim();
        return /^[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*$/.test(callee) ? callee : null;
      }
    }
  }
  return null;
}

/** The name an `import a.b.c` binds: `a` in Python, the last segment in Go. */
function importedModuleName(module: string, family: string): string {
  if (family === "python") return module.split(".")[0];
  if (family === "go") {
    const parts = module.split("/");
    const last = parts[parts.length - 1];
    return /^v\d+$/.test(last) && parts.length > 1
      ? parts[parts.length - 2]
      : last.replace(/^go-/, "");
  }
  return module;
}

function dirOf(path: string): string {
  const dir = posix.dirname(path);
  return dir === "." ? "" : dir;
}

function languageOfPath(path: string): string | null {
  const ext = posix.extname(path);
  return ({
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
  } as Record<string, string>)[ext] ?? null;
}
