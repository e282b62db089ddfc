/**
 * Evidence level 3, module-path ownership: the package of the use's file owns names it leaves
 * unbound (the other files of a Go package or of a JVM package's directory), and a dotted
 * receiver written as a module path (`os.path`, `pkg.mod`, `crate::a`) names a module.
 */
import { languageOfPath } from "../indexer/languages.ts";
import { familyRules } from "./families.ts";
import { exportedDefinition, importBinding, importedModuleOf } from "./imports.ts";
import { type Binding, dirOf, type Scope, type Site, topLevelNamed, weaker } from "./binding.ts";

/** A top-level definition of another file of the site's package, or null. */
export function packageOwned(scope: Scope, site: Site, name: string): Binding | null {
  const packageScope = familyRules(site.language).packageScope;
  if (!packageScope) return null;
  const dir = dirOf(site.path);
  const files = packageScope === "go_package"
    ? scope.modules.goPackageFiles(site.repo, dir)
    : [...scope.store.paths(site.repo)].filter((p) =>
      dirOf(p) === dir && languageOfPath(p) === site.language
    );
  const others = files.filter((file) => file !== site.path);
  const found = topLevelNamed(scope.store, { repo: site.repo, files: others, name });
  if (found.length === 0) return null;
  return { kind: "symbol", symbol: found[0], evidence: "module_path" };
}

/** `name` in the module a dotted receiver names at a site, or null when it names none. */
export function dottedModule(
  scope: Scope,
  site: Site,
  options: { receiver: string; name: string },
): Binding | null {
  const { receiver, name } = options;
  const separator = receiver.includes("::") ? "::" : ".";
  const first = receiver.split(separator)[0];
  if (familyRules(site.language).pathRoots.includes(first)) {
    const target = scope.modules.resolve(site, receiver);
    if (target.status !== "found") return null;
    const found = exportedDefinition(scope, { repo: target.repo, files: target.files, name });
    return found.kind === "symbol"
      ? { ...found, evidence: weaker("module_path", found.evidence) }
      : null;
  }
  const imports = scope.store.importsOfFile(site.repo, site.path);
  // `import a.b` then `a.b.f()`.
  const direct = imports.find((i) => i.module === receiver && i.alias === null);
  const firstBinding = importBinding(scope, site, first);
  if (!direct && !firstBinding) return null;
  if (firstBinding?.kind === "external" && !direct) return firstBinding;
  const modulePath = direct
    ? receiver
    : firstBinding?.kind === "module"
    ? `${importedModuleOf(scope, site, first) ?? first}${receiver.slice(first.length)}`
    : receiver;
  const target = scope.modules.resolve(site, modulePath);
  if (target.status === "external") {
    return { kind: "external", module: modulePath, reason: target.reason };
  }
  const found = exportedDefinition(scope, { repo: target.repo, files: target.files, name });
  if (found.kind === "symbol") {
    return { ...found, evidence: weaker("module_path", found.evidence) };
  }
  return found.kind === "none" ? null : found;
}
