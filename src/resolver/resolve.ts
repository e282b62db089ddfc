/**
 * The resolver: what one stored relation means, decided at query time over the caller's
 * scope by four levels of evidence applied in order, the first that binds the name wins —
 * 1. same file and lexical scope (`lexical.ts`), 2. the file's import bindings
 * (`imports.ts`), 3. module-path ownership (`ownership.ts`), 4. one unique definition in
 * scope (`unique.ts`); `receiver.name` goes through `members.ts`. Levels 1–3 are exact,
 * level 4 approximate. Nothing it decides is ever written back.
 */
import type { ModuleResolver } from "./modules.ts";
import type { ScopeStore } from "./store.ts";
import type { Evidence, RelationRecord, Resolution, SymbolRecord } from "./types.ts";
import {
  type Binding,
  isOneDefinition,
  MAX_HOPS,
  sameDefinition,
  type Scope,
  type Site,
  weaker,
} from "./binding.ts";
import { familyRules } from "./families.ts";
import { lexicalDefinition, localVariable } from "./lexical.ts";
import { exportedDefinition, importBinding } from "./imports.ts";
import { packageOwned } from "./ownership.ts";
import { uniqueDefinition } from "./unique.ts";
import { bindMemberOnce, memberOf, overriddenBy } from "./members.ts";

export type { Binding, Site } from "./binding.ts";
export { typeParameterOffset } from "./lexical.ts";

export class Resolver implements Scope {
  readonly store: ScopeStore;
  readonly modules: ModuleResolver;
  readonly #cache = new Map<string, Resolution>();
  #memberDepth = 0;

  constructor(store: ScopeStore, modules: ModuleResolver) {
    this.store = store;
    this.modules = modules;
  }

  /**
   * The definition one relation means, or why none can be named: kept for the request, and
   * across requests when the store keeps resolutions for its targets' generations. Kept by the
   * depth of the member chain it is asked at (a base class resolved deep in a chain may be cut
   * where the same relation asked alone is not), so what a relation resolves to never depends
   * on what was asked before it.
   */
  resolve(relation: RelationRecord): Resolution {
    const key =
      `${this.#memberDepth}\0${relation.repo}\0${relation.path}\0${relation.startLine}:${relation.startCol}\0${relation.kind}\0${relation.target}\0${relation.receiver}`;
    let resolution = this.#cache.get(key);
    if (!resolution) {
      resolution = this.store.keptResolutions()?.get(key);
      if (!resolution) {
        resolution = this.#resolveUncached(relation);
        // Asked again: a manifest read from the working tree meanwhile keeps nothing.
        this.store.keptResolutions()?.keep(key, resolution);
      }
      this.#cache.set(key, resolution);
    }
    return resolution;
  }

  /**
   * False when a relation cannot resolve to any of `targets`, nor to an ambiguity naming one,
   * told from its file's imports without resolving it: a bare name an import of its file binds
   * means that binding unless a parameter, a local or a definition of its own file shadows it,
   * and none of those is a definition of another file; a name no import binds means a definition
   * of that name or none. True whenever only resolving can tell (a member or qualified name, a
   * use in a file that holds one of `targets`, a family whose bare names may be inherited
   * members, a name no import binds that one of `targets` bears).
   */
  mayMean(relation: RelationRecord, targets: readonly SymbolRecord[]): boolean {
    if (relation.kind === "imports" || relation.receiver !== null) return true;
    if (/\.|::/.test(relation.target)) return true;
    if (familyRules(relation.language).implicitReceiver) return true;
    if (targets.some((t) => t.repo === relation.repo && t.path === relation.path)) return true;
    // Imports bind the same for every site of a file: the enclosing definition is not needed.
    const site: Site = {
      repo: relation.repo,
      path: relation.path,
      language: relation.language,
      from: null,
      line: relation.startLine,
    };
    const binding = importBinding(this, site, relation.target);
    // Bound by no import, a name is found by the name it is written with (package ownership, a
    // unique definition): an alias (`from m import C as cls`) reaches its class only by import.
    if (binding === null) return targets.some((t) => t.name === relation.target);
    const meant = (symbol: SymbolRecord) => targets.some((t) => sameDefinition(symbol, t));
    if (binding.kind === "symbol") return meant(binding.symbol);
    if (binding.kind === "ambiguous") return binding.candidates.some((c) => meant(c.symbol));
    return false;
  }

  /** The site of a relation. */
  siteOf(relation: RelationRecord): Site {
    const from = relation.fromSymbol
      ? this.store.symbolById(relation.repo, relation.fromSymbol, relation.path)
      : null;
    return {
      repo: relation.repo,
      path: relation.path,
      language: relation.language,
      from,
      line: relation.startLine,
    };
  }

  /** A bare name at a site, evidence levels 1 → 4. */
  bindName(site: Site, name: string): Binding {
    // A parameter or local variable of the enclosing function shadows everything else.
    const variable = this.localVariable(site, name);
    if (variable) return this.#variableBinding(site, variable);
    // 1. Same file and lexical scope.
    const local = lexicalDefinition(this, site, name);
    if (local && !local.guessed) {
      return { kind: "symbol", symbol: local.symbol, evidence: local.evidence ?? "same_file" };
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
    // 2. Import bindings of the file; 3. module-path ownership (the file's own package).
    // 4. One unique definition across the scope.
    return importBinding(this, site, name) ?? packageOwned(this, site, name) ??
      uniqueDefinition(this, site, { name, members: false });
  }

  /** `receiver.name` at a site; receiver chains deeper than `MAX_HOPS` are cut. */
  bindMember(site: Site, receiver: string, name: string): Binding {
    // Types written in terms of themselves (`x = x.make()`) must not loop.
    if (this.#memberDepth >= MAX_HOPS) {
      return { kind: "none", reason: `receiver chain deeper than ${MAX_HOPS}` };
    }
    this.#memberDepth++;
    try {
      return bindMemberOnce(this, site, { receiver, name });
    } finally {
      this.#memberDepth--;
    }
  }

  /** A member of a class or of its bases (at most `MAX_HOPS` deep), or null. */
  memberOf(owner: SymbolRecord, name: string): { symbol: SymbolRecord; evidence: Evidence } | null {
    return memberOf(this, { owner, name });
  }

  /** The members of base classes and interfaces that a method overrides or implements. */
  overridden(method: SymbolRecord): SymbolRecord[] {
    return overriddenBy(this, method);
  }

  /**
   * A parameter or local variable of the function enclosing a site, read from its
   * committed text (locals are not indexed): a pseudo-definition at its latest
   * binding before the use, or null.
   */
  localVariable(site: Site, name: string): SymbolRecord | null {
    return localVariable(this, site, name);
  }

  /** A local or nested definition found first: a guess when same-named ones share its scope. */
  #variableBinding(site: Site, variable: SymbolRecord): Binding {
    if (!variable.id.startsWith("local:")) {
      // An indexed nested definition: a guess when same-named ones share its scope (blocks).
      const siblings = this.store.symbolsInFile(site.repo, site.path).filter((s) =>
        s.name === variable.name && s.parentId === variable.parentId
      );
      if (!isOneDefinition(siblings)) {
        return {
          kind: "symbol",
          symbol: variable,
          evidence: "unique_name",
          note:
            `several definitions named '${variable.name}' in this scope; the nearest preceding one was chosen`,
        };
      }
    }
    return { kind: "symbol", symbol: variable, evidence: "same_file" };
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
      ? this.bindName(site, target)
      : this.bindMember(site, receiver, target);
    return toResolution(binding);
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
    const found = exportedDefinition(this, {
      repo: target.repo,
      files: target.files,
      name: relation.target,
    });
    if (found.kind === "symbol") {
      return {
        status: "resolved",
        symbol: found.symbol,
        evidence: weaker("import", found.evidence),
      };
    }
    return toResolution(found);
  }
}

/** What a binding means as the answer for one relation. */
function toResolution(binding: Binding): Resolution {
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
            moduleFile: { repo: binding.repo, path: binding.files[0], evidence: binding.evidence },
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
