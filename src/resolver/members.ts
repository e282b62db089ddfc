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
  fileLocal,
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
  // is not any of the repository's hundreds of `__init__`s.) Rust's `super::` is a module path.
  if (options.root === "super" && !familyRules(owner.language).pathRoots.includes("super")) {
    const outside = baseOutside(scope, owner);
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

/** Kinds of definition a base class may be written through (`Base = make_base()`). */
const BASE_ALIAS_KINDS: ReadonlySet<string> = new Set(["variable", "constant", "type"]);

/** A base outside the scope, as `super()` reaches it. */
interface OutsideBase {
  base: string;
  module: string;
  reason: string;
}

/**
 * The base of `owner` that lies outside the scope (imported from outside it, or a name no
 * definition of the scope has: a builtin, a star import's), searched depth-first in declaration
 * order through the bases in scope (none of which defines the member). Null whenever that is not
 * certain: a base that is ambiguous, not a class (an alias, a class factory's parameter) or
 * unresolved for another reason, a class whose header names bases the index did not record
 * (`class C(with_metaclass(M, Base))`), or one with no base at all (in a mixin, `super()` goes on
 * to whatever follows it in a subclass's MRO).
 */
function baseOutside(scope: Scope, owner: SymbolRecord): OutsideBase | null {
  const found = basesBeyond(scope, { owner, hops: 0 });
  return typeof found === "object" ? found : null;
}

/**
 * `baseOutside` for one class of the chain: the base outside, "inside" when every base of it
 * is a class in scope (so far as its header shows), or "unknown".
 */
function basesBeyond(
  scope: Scope,
  options: { owner: SymbolRecord; hops: number },
): OutsideBase | "inside" | "unknown" {
  const { owner, hops } = options;
  if (hops > MAX_HOPS) return "unknown";
  // Interfaces a Java or TypeScript class implements are not where `super.m()` goes.
  const kinds = familyRules(owner.language).receivers === "python"
    ? ["inherits", "implements"]
    : ["inherits"];
  const bases = scope.store.relationsFrom(owner).filter((r) => kinds.includes(r.kind));
  if (bases.length < writtenBases(owner)) return "unknown";
  if (bases.length === 0) return hops === 0 ? "unknown" : "inside";
  for (const relation of bases) {
    const base = relation.receiver ? `${relation.receiver}.${relation.target}` : relation.target;
    const resolution = scope.resolve(relation);
    if (resolution.status === "external") {
      return { base, module: resolution.module, reason: resolution.reason };
    }
    if (resolution.status === "unresolved") {
      // Outside the scope only when no class (or name a class could be bound to) of that name
      // is defined in it.
      const named = scope.store.symbolsNamed(scope.store.scopeOf(owner.repo), relation.target);
      if (named.some((s) => CLASS_KINDS.has(s.kind) || BASE_ALIAS_KINDS.has(s.kind))) {
        return "unknown";
      }
      return { base, module: base, reason: `no definition of '${relation.target}' in scope` };
    }
    if (
      resolution.status !== "resolved" || !CLASS_KINDS.has(resolution.symbol.kind) ||
      resolution.symbol.id === owner.id
    ) return "unknown";
    const beyond = basesBeyond(scope, { owner: resolution.symbol, hops: hops + 1 });
    if (beyond !== "inside") return beyond;
  }
  return "inside";
}

/**
 * How many positional bases a class header writes (`class C(A, B, metaclass=M):` has two), or 0
 * when its signature does not show them; keyword arguments are not bases.
 */
function writtenBases(owner: SymbolRecord): number {
  const header = /^\s*class\s+[\w$]+\s*\((.*)\)\s*:?\s*$/s.exec(owner.signature ?? "");
  if (!header) return 0;
  let depth = 0;
  let part = "";
  const parts: string[] = [];
  for (const char of header[1]) {
    if (char === "(" || char === "[" || char === "{") depth++;
    else if (char === ")" || char === "]" || char === "}") depth--;
    if (char === "," && depth === 0) {
      parts.push(part);
      part = "";
    } else part += char;
  }
  parts.push(part);
  return parts.filter((p) => p.trim() !== "" && !/^\s*\*{0,2}[\w$]+\s*=/.test(p)).length;
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
  // A definition nested in a function's body is no member of it, even where a class names that
  // function as its base (`class C extends makeWidget`): it is a local of the function's body.
  const own = scope.store.childrenOf(owner).filter((s) =>
    s.name === name && !fileLocal(scope.store, s)
  );
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
