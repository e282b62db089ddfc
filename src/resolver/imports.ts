/**
 * Evidence level 2, import bindings: what the imports of the use's file bind to a name, and
 * the top-level definition a module exports under a name (following re-exports, renames and
 * `export default`).
 */
import { languageOfPath } from "../indexer/languages.ts";
import { familyRules } from "./families.ts";
import {
  type Binding,
  MAX_HOPS,
  preferImplementation,
  type Scope,
  type Site,
  topLevelNamed,
  weaker,
} from "./binding.ts";
import type { SymbolRecord } from "./types.ts";

/**
 * What an import of the site's file binds to `name`, or null when none does (the same for
 * every site of a file: made once per file and name).
 */
export function importBinding(scope: Scope, site: Site, name: string): Binding | null {
  return scope.store.memo(
    `importBinding\0${site.repo}\0${site.path}\0${site.language}\0${name}`,
    () => importBindingOf(scope, site, name),
  );
}

function importBindingOf(scope: Scope, site: Site, name: string): Binding | null {
  const imports = scope.store.importsOfFile(site.repo, site.path);
  const rules = familyRules(site.language);
  const explicit = imports.filter((i) =>
    i.alias === name ||
    (i.alias === null && i.target === name && i.target !== i.module) ||
    (i.alias === null && i.module !== null && i.target === i.module &&
      importedModuleName(i.module, rules.importBinds) === name)
  );
  for (const binding of explicit) {
    if (!binding.module) continue;
    const namespace = binding.target === "*" || binding.target === binding.module;
    // `import a.b` binds `a` in Python.
    const spec = rules.importBinds === "first_segment" && namespace && binding.alias === null
      ? name
      : binding.module;
    const target = scope.modules.resolve(site, spec);
    if (target.status === "external") {
      return { kind: "external", module: spec, reason: target.reason };
    }
    if (namespace) {
      // `import * as ns`, `import mod`, a Go import, or a JS default import.
      if (rules.defaultImports && binding.target === binding.module && binding.alias !== null) {
        const fallback = defaultExport(scope, target.repo, target.files);
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
    const found = exportedDefinition(scope, {
      repo: target.repo,
      files: target.files,
      name: binding.target,
    });
    if (found.kind === "symbol") return { ...found, evidence: weaker("import", found.evidence) };
    if (found.kind === "none" && rules.submoduleImports) {
      // `from pkg import mod`: the name is a submodule.
      const sub = scope.modules.resolve(
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
    const target = scope.modules.resolve(site, binding.module!);
    if (target.status !== "found") continue;
    const found = exportedDefinition(scope, { repo: target.repo, files: target.files, name });
    if (found.kind === "symbol") return { ...found, evidence: weaker("import", found.evidence) };
  }
  return null;
}

/**
 * A top-level definition of a module's files named `name`: defined there, renamed by
 * `export { local as name }`, or re-exported from another module (at most `MAX_HOPS` deep).
 */
export function exportedDefinition(
  scope: Scope,
  options: { repo: string; files: string[]; name: string; hops?: number },
): Binding {
  const hops = options.hops ?? 0;
  return scope.store.memo(
    `exportedDefinition\0${options.repo}\0${options.files.join("\0")}\0${options.name}\0${hops}`,
    () => exportedDefinitionOf(scope, { ...options, hops }),
  );
}

function exportedDefinitionOf(
  scope: Scope,
  options: { repo: string; files: string[]; name: string; hops: number },
): Binding {
  const { repo, files, name, hops } = options;
  const store = scope.store;
  const defined = topLevelNamed(store, { repo, files, name });
  if (defined.length > 0) {
    return { kind: "symbol", symbol: preferImplementation(defined), evidence: "same_file" };
  }
  if (hops >= MAX_HOPS) {
    return { kind: "none", reason: `re-export chain longer than ${MAX_HOPS}` };
  }
  // `export { Local as name }` without a source renames a definition of the same file.
  for (const file of files) {
    const renamed = exportRename(store.fileText(repo, file) ?? "", name);
    if (!renamed) continue;
    const local = topLevelNamed(store, { repo, files: [file], name: renamed });
    if (local.length > 0) {
      return { kind: "symbol", symbol: preferImplementation(local), evidence: "same_file" };
    }
  }
  for (const file of files) {
    const probe = store.symbolsInFile(repo, file)[0];
    const site: Site = {
      repo,
      path: file,
      language: probe?.language ?? languageOfPath(file),
      from: null,
      line: 1,
    };
    for (const relation of store.importsOfFile(repo, file)) {
      if (!relation.module) continue;
      const bindsName = relation.alias === name ||
        (relation.alias === null && relation.target === name);
      const wildcard = relation.target === "*" && relation.alias === null;
      if (!bindsName && !wildcard) continue;
      const target = scope.modules.resolve(site, relation.module);
      if (target.status === "external") {
        if (bindsName) return { kind: "external", module: relation.module, reason: target.reason };
        continue;
      }
      const inner = exportedDefinition(scope, {
        repo: target.repo,
        files: target.files,
        name: bindsName ? relation.target : name,
        hops: hops + 1,
      });
      if (inner.kind === "symbol") return { ...inner, evidence: "import" };
    }
  }
  return { kind: "none", reason: `'${name}' is not defined in ${files.join(", ")}` };
}

/** The local name `export { local as name }` (with no `from`) renames to `name`, or null. */
function exportRename(text: string, name: string): string | null {
  const renamed = new RegExp(
    `export\\s*(?:type\\s*)?\\{[^}]*?\\b([A-Za-z_$][\\w$]*)\\s+as\\s+${
      name.replace(/\$/g, "\\$")
    }\\b[^}]*\\}(?!\\s*from)`,
  ).exec(text);
  return renamed ? renamed[1] : null;
}

/** The top-level definition a module's `export default` names, or null. */
function defaultExport(scope: Scope, repo: string, files: string[]): SymbolRecord | null {
  for (const file of files) {
    const text = scope.store.fileText(repo, file) ?? "";
    const match =
      /export\s+default\s+(?:abstract\s+)?(?:async\s+)?(?:function\*?|class)?\s*([A-Za-z_$][\w$]*)/
        .exec(text);
    if (!match) continue;
    const found = topLevelNamed(scope.store, { repo, files: [file], name: match[1] });
    if (found.length > 0) return found[0];
  }
  return null;
}

/** The module a name imported at a site stands for (`import a.b as n` → `a.b`), or null. */
export function importedModuleOf(scope: Scope, site: Site, name: string): string | null {
  for (const i of scope.store.importsOfFile(site.repo, site.path)) {
    if (i.alias === name && i.module) {
      return i.module === i.target || i.target === "*" ? i.module : `${i.module}.${i.target}`;
    }
    if (i.alias === null && i.module === name) return name;
  }
  return null;
}

/** The name an `import a.b.c` binds under a family's rule (`a` in Python, `c` in Go). */
function importedModuleName(
  module: string,
  binds: "first_segment" | "last_path_segment" | "module",
): string {
  if (binds === "first_segment") return module.split(".")[0];
  if (binds === "last_path_segment") {
    const parts = module.split("/");
    const last = parts[parts.length - 1];
    return /^v\d+$/.test(last) && parts.length > 1
      ? parts[parts.length - 2]
      : last.replace(/^go-/, "");
  }
  return module;
}
