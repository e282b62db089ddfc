/**
 * Members: `receiver.name` at a site. The receiver is bound first (`self`/`this`/`super`, a
 * constructed class, a typed attribute or variable, an imported module, a package's type, a
 * dotted module path), then the member is looked up in the class it denotes and its bases
 * (Go methods in the package, Rust `impl` blocks beside the type); what stays unknown falls to
 * a unique member name.
 */
import { attributeType, receiverType } from "./receiver.ts";
import { familyRules } from "./families.ts";
import { exportedDefinition, importBinding } from "./imports.ts";
import { lexicalDefinition, localVariableType } from "./lexical.ts";
import { dottedModule, packageOwned } from "./ownership.ts";
import { uniqueDefinition } from "./unique.ts";
import {
  ancestorsOf,
  type Binding,
  CLASS_KINDS,
  dirOf,
  MAX_HOPS,
  preferImplementation,
  type Scope,
  type Site,
  through,
  weaker,
} from "./binding.ts";
import type { Evidence, SymbolRecord } from "./types.ts";

const SELF_NAMES = new Set(["self", "this", "cls", "Self"]);
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const DOTTED_PATH = /^[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)+$/;
/** A Go method's receiver type: `func (r *T) M(…)`. */
const GO_RECEIVER = /^func\s*\(\s*\w*\s*\*?\s*([A-Za-z_]\w*)/;

/** A member found in a class or its bases, with the evidence of the path to it. */
interface Member {
  symbol: SymbolRecord;
  evidence: Evidence;
}

/** `receiver.name` at a site (the receiver's form decides how it is bound). */
export function bindMemberOnce(
  scope: Scope,
  site: Site,
  options: { receiver: string; name: string },
): Binding {
  const { receiver, name } = options;
  const root = receiver.replace(/\(\)$/, "");
  const guess = () => uniqueDefinition(scope, site, { name, members: true, receiver });
  if (SELF_NAMES.has(root) || root === "super") {
    return ownMember(scope, site, { root, name }) ?? guess();
  }
  const constructed = calleeOfCall(receiver);
  if (constructed) {
    // `Client().get()`, `new api.Client().get()`: a member of the class the call constructs.
    const parts = constructed.split(/\.|::/);
    const binding = parts.length === 1
      ? scope.bindName(site, constructed)
      : scope.bindMember(site, parts.slice(0, -1).join("."), parts[parts.length - 1]);
    if (binding.kind === "symbol" && CLASS_KINDS.has(binding.symbol.kind)) {
      const member = memberOf(scope, { owner: binding.symbol, name });
      if (member) return through(binding.evidence, member);
    }
    if (binding.kind === "external") return binding;
    return guess();
  }
  const attribute = /^(self|this)\.([A-Za-z_$][\w$]*)$/.exec(receiver);
  if (attribute) {
    const owner = enclosingClass(scope, site.from);
    const type = owner ? attributeTypeOf(scope, owner, attribute[2]) : null;
    const viaType = type ? memberOfTypeName(scope, site, { typeName: type.name, name }) : null;
    return viaType ?? guess();
  }
  if (IDENTIFIER.test(root)) return memberOfNamedReceiver(scope, site, { root, name }) ?? guess();
  // A dotted receiver: a module path (`os.path`, `pkg.mod`, `crate::a`) or a chain.
  if (DOTTED_PATH.test(root)) {
    const viaModule = dottedModule(scope, site, { receiver: root, name });
    if (viaModule) return viaModule;
  }
  return guess();
}

/** `self.name`, `this.name`, `super.name`: a member of the enclosing class or of its bases. */
function ownMember(
  scope: Scope,
  site: Site,
  options: { root: string; name: string },
): Binding | null {
  const owner = enclosingClass(scope, site.from);
  if (!owner) return null;
  const start: Member[] = options.root === "super"
    ? basesOf(scope, owner)
    : [{ symbol: owner, evidence: "same_file" }];
  for (const base of start) {
    const member = memberOf(scope, { owner: base.symbol, name: options.name });
    if (member) return through(base.evidence, member);
  }
  // `super().name` found in no base in scope: a base outside the scope holds it. (Never a
  // same-named method of an unrelated class: `super().__init__` in a subclass of a library's class
  // is not any of the repository's hundreds of `__init__`s.)
  if (options.root === "super") {
    const outside = externalBase(scope, owner, options.name, 0);
    if (outside) {
      return {
        kind: "external",
        module: outside.module,
        reason: `'super().${options.name}' in ${owner.qualified}: no base in scope defines it, ` +
          `and its base '${outside.base}' is outside the scope (${outside.reason})`,
      };
    }
  }
  // Defined in a subclass or mixin only: dynamic dispatch, guessed by name.
  return null;
}

/** What Python's `object` defines: `super().__init__()` in a class with no base means it. */
const OBJECT_MEMBERS: ReadonlySet<string> = new Set(
  ("__init__ __new__ __init_subclass__ __setattr__ __getattribute__ __delattr__ __repr__ " +
    "__str__ __eq__ __ne__ __hash__ __format__ __reduce__ __reduce_ex__ __sizeof__ __dir__ " +
    "__getstate__ __subclasshook__").split(" "),
);

/**
 * Where `super().name` goes when no base in scope defines it: the first base of `owner` (or of
 * its bases in scope) that is outside the scope — imported from outside it, or defined nowhere
 * in it (a builtin, a star import) — or Python's `object` for a class with no base.
 */
function externalBase(
  scope: Scope,
  owner: SymbolRecord,
  name: string,
  hops: number,
): { base: string; module: string; reason: string } | null {
  if (hops > MAX_HOPS) return null;
  const inScope: SymbolRecord[] = [];
  let bases = 0;
  for (const relation of scope.store.relationsFrom(owner)) {
    if (relation.kind !== "inherits" && relation.kind !== "implements") continue;
    bases++;
    const base = relation.receiver ? `${relation.receiver}.${relation.target}` : relation.target;
    const resolution = scope.resolve(relation);
    if (resolution.status === "external") {
      return { base, module: resolution.module, reason: resolution.reason };
    }
    if (resolution.status === "unresolved") {
      return { base, module: base, reason: `it is defined nowhere in scope: ${resolution.reason}` };
    }
    if (resolution.status === "resolved" && resolution.symbol.id !== owner.id) {
      inScope.push(resolution.symbol);
    }
  }
  if (
    bases === 0 && familyRules(owner.language).receivers === "python" && OBJECT_MEMBERS.has(name)
  ) {
    return {
      base: "object",
      module: "builtins",
      reason: "a class with no base derives from object",
    };
  }
  for (const base of inScope) {
    const found = externalBase(scope, base, name, hops + 1);
    if (found) return found;
  }
  return null;
}

/**
 * `root.name` with a plain identifier as the receiver: a definition of the file, an import (a
 * module or a class), a typed local, or a type of the file's package.
 */
function memberOfNamedReceiver(
  scope: Scope,
  site: Site,
  options: { root: string; name: string },
): Binding | null {
  const { root, name } = options;
  const lexical = lexicalDefinition(scope, site, root);
  if (lexical) {
    const viaSymbol = memberOfSymbol(scope, {
      symbol: lexical.symbol,
      evidence: lexical.guessed ? "unique_name" : lexical.evidence ?? "same_file",
      name,
    });
    if (viaSymbol) return viaSymbol;
  }
  const imported = importBinding(scope, site, root);
  if (imported?.kind === "module") {
    const found = exportedDefinition(scope, {
      repo: imported.repo,
      files: imported.files,
      name,
    });
    if (found.kind === "symbol") return through(imported.evidence, found);
    // `from pkg import mod` then `mod.f()`: a submodule of a package.
    return found.kind === "none"
      ? { kind: "none", reason: `'${name}' is not defined in ${imported.via}` }
      : found;
  }
  if (imported?.kind === "symbol") {
    const viaSymbol = memberOfSymbol(scope, {
      symbol: imported.symbol,
      evidence: imported.evidence,
      name,
    });
    if (viaSymbol) return viaSymbol;
  }
  if (imported?.kind === "external") return imported;
  const local = localVariableType(scope, site, root);
  if (local) {
    const viaType = memberOfTypeName(scope, site, { typeName: local.name, name });
    if (viaType) return viaType;
  }
  if (!lexical && !imported) {
    const owned = packageOwned(scope, site, root);
    if (owned?.kind === "symbol") {
      const viaSymbol = memberOfSymbol(scope, {
        symbol: owned.symbol,
        evidence: owned.evidence,
        name,
      });
      if (viaSymbol) return viaSymbol;
    }
  }
  return null;
}

/** The member `name` reached through a symbol used as a receiver (a class, or a typed variable). */
function memberOfSymbol(
  scope: Scope,
  options: { symbol: SymbolRecord; evidence: Evidence; name: string },
): Binding | null {
  const { symbol, evidence, name } = options;
  if (CLASS_KINDS.has(symbol.kind)) {
    const member = memberOf(scope, { owner: symbol, name });
    return member ? through(evidence, member) : null;
  }
  // A module-level variable whose signature shows its type: `const client = new Client()`.
  const style = familyRules(symbol.language).receivers;
  const type = symbol.signature && style
    ? receiverType({ style, variable: symbol.name, signature: null, text: symbol.signature })
    : null;
  if (!type) return null;
  const declaration: Site = {
    repo: symbol.repo,
    path: symbol.path,
    language: symbol.language,
    from: null,
    line: symbol.startLine,
  };
  const viaType = memberOfTypeName(scope, declaration, { typeName: type.name, name });
  return viaType?.kind === "symbol" ? through(evidence, viaType) : null;
}

/**
 * The member `name` of the class a type name denotes at a site; null when the name denotes no
 * class (`x = make()` is a call, not a construction: its type is not evident).
 */
function memberOfTypeName(
  scope: Scope,
  site: Site,
  options: { typeName: string; name: string },
): Binding | null {
  const parts = options.typeName.split(".");
  const binding = parts.length > 1
    ? scope.bindMember(site, parts.slice(0, -1).join("."), parts[parts.length - 1])
    : scope.bindName(site, options.typeName);
  if (binding.kind !== "symbol" || !CLASS_KINDS.has(binding.symbol.kind)) return null;
  const member = memberOf(scope, { owner: binding.symbol, name: options.name });
  return member ? through(binding.evidence, member) : null;
}

/** A member of a class or one of its bases (at most `MAX_HOPS` bases deep). */
export function memberOf(
  scope: Scope,
  options: { owner: SymbolRecord; name: string; hops?: number },
): Member | null {
  const { owner, name } = options;
  const hops = options.hops ?? 0;
  if (hops > MAX_HOPS) return null;
  const own = scope.store.childrenOf(owner).filter((s) => s.name === name);
  if (own.length > 0) return { symbol: preferImplementation(own), evidence: "same_file" };
  const beside = methodBesideType(scope, { owner, name });
  if (beside) return beside;
  for (const base of basesOf(scope, owner)) {
    const found = memberOf(scope, { owner: base.symbol, name, hops: hops + 1 });
    if (found) return { symbol: found.symbol, evidence: weaker(base.evidence, found.evidence) };
  }
  return null;
}

/** Go methods and Rust impls live beside the type, not inside it. */
function methodBesideType(
  scope: Scope,
  options: { owner: SymbolRecord; name: string },
): Member | null {
  const { owner, name } = options;
  const where = familyRules(owner.language).methodsBesideType;
  if (!where) return null;
  const files = where === "go_package"
    ? scope.modules.goPackageFiles(owner.repo, dirOf(owner.path))
    : [owner.path];
  for (const file of files) {
    const methods = scope.store.symbolsInFile(owner.repo, file).filter((s) =>
      s.name === name && (s.kind === "method" || s.kind === "function") &&
      receiverOwner(scope, { method: s, owner })
    );
    if (methods.length > 0) {
      return { symbol: methods[0], evidence: file === owner.path ? "same_file" : "module_path" };
    }
  }
  return null;
}

/** The resolved base classes and interfaces of a class. */
export function basesOf(scope: Scope, owner: SymbolRecord): Member[] {
  const out: Member[] = [];
  for (const relation of scope.store.relationsFrom(owner)) {
    if (relation.kind !== "inherits" && relation.kind !== "implements") continue;
    const resolution = scope.resolve(relation);
    if (resolution.status === "resolved" && resolution.symbol.id !== owner.id) {
      out.push({ symbol: resolution.symbol, evidence: resolution.evidence });
    }
  }
  return out;
}

/** The members of base classes and interfaces that a method overrides or implements. */
export function overriddenBy(scope: Scope, method: SymbolRecord): SymbolRecord[] {
  if (!method.parentId || method.name === "constructor" || method.name === "__init__") return [];
  const owner = scope.store.symbolById(method.repo, method.parentId);
  if (!owner || !CLASS_KINDS.has(owner.kind)) return [];
  const out: SymbolRecord[] = [];
  for (const base of basesOf(scope, owner)) {
    const member = memberOf(scope, { owner: base.symbol, name: method.name });
    if (member && member.symbol.id !== method.id) out.push(member.symbol);
  }
  return out;
}

/** The class enclosing a definition; a Go method's receiver type counts as its class. */
function enclosingClass(scope: Scope, from: SymbolRecord | null): SymbolRecord | null {
  for (const node of ancestorsOf(scope.store, from)) {
    if (CLASS_KINDS.has(node.kind)) return node;
  }
  if (!from || !(from.kind === "method" || from.kind === "function")) return null;
  if (familyRules(from.language).methodsBesideType !== "go_package") return null;
  const receiver = GO_RECEIVER.exec(from.signature ?? "");
  if (!receiver) return null;
  const types = scope.modules.goPackageFiles(from.repo, dirOf(from.path)).flatMap((file) =>
    scope.store.symbolsInFile(from.repo, file)
  ).filter((s) => s.name === receiver[1] && CLASS_KINDS.has(s.kind));
  return types[0] ?? null;
}

/** The type an attribute of a class is given (`self.x = T(…)`, a field `x: T`). */
function attributeTypeOf(scope: Scope, owner: SymbolRecord, attribute: string) {
  const field = scope.store.childrenOf(owner).find((s) => s.name === attribute);
  const lines = scope.store.fileLines(owner.repo, owner.path) ?? [""];
  const classText = lines.slice(owner.startLine - 1, owner.endLine).join("\n");
  return attributeType({
    style: familyRules(owner.language).receivers,
    attribute,
    classText,
    fieldSignature: field?.signature ?? null,
  });
}

/** True when a Go method's receiver (or a Rust impl's type) is `owner`. */
function receiverOwner(
  scope: Scope,
  options: { method: SymbolRecord; owner: SymbolRecord },
): boolean {
  const { method, owner } = options;
  if (method.parentId) {
    const parent = scope.store.symbolById(method.repo, method.parentId);
    if (parent && parent.name === owner.name) return true;
    if (parent && parent.id === owner.id) return true;
  }
  const match = GO_RECEIVER.exec(method.signature ?? "");
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
