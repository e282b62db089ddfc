/**
 * What the dependency index adds to navigation on a real repository: the share of import
 * bindings, and of uses of imported names, that resolve to a definition without it (before) and
 * with it (after), and the index time and size it costs.
 *
 *   deno run -A --unstable-worker-options scripts/deps_resolution.ts --repo DIR [--json FILE]
 *
 * "external" counts only imports (and uses of names they bind) of the packages the dependency
 * index found imported (third-party names: not relative, not the standard library, not the
 * repository's own modules); "installed" only those of the packages it found installed and
 * indexed. DIR must hold the installed dependencies (a `.venv`, a `node_modules`); it is read, never
 * written (the index goes to a temporary cache). "Before" is the same index read with the
 * repository's dependency state set aside, so both figures come from one build.
 */
import { parseArgs } from "node:util";
import { Workspace } from "../src/workspace/workspace.ts";
import { RequestScope } from "../src/workspace/scope.ts";
import { ScopeStore } from "../src/resolver/store.ts";
import { ModuleResolver } from "../src/resolver/modules.ts";
import { Resolver } from "../src/resolver/resolve.ts";
import type { RelationRecord } from "../src/resolver/types.ts";
import { dependencyStatePath, loadDependencyState } from "../src/deps/mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { repo: { type: "string" }, json: { type: "string" } },
});
if (!values.repo) {
  console.error("usage: deps_resolution.ts --repo DIR [--json FILE]");
  Deno.exit(2);
}
const root = Deno.realPathSync(values.repo);
const cache = Deno.makeTempDirSync({ prefix: "sextant-deps-resolution-" });
const workspace = await Workspace.open({ directory: root, cacheDirectory: cache });
const repo = workspace.repositories[0];
const started = performance.now();
const report = await workspace.refresh(repo) as Awaited<ReturnType<Workspace["refresh"]>> & {
  dependencies?: { ms: number };
};
const totalMs = performance.now() - started;
const state = loadDependencyState(repo.location)!;

const relations = workspace.withReader(repo, (reader) =>
  reader.relationsOfKinds([
    "imports",
    "calls",
    "references",
    "reads",
    "writes",
    "type_of",
    "inherits",
    "implements",
  ])).value!.map((row): RelationRecord => ({ repo: repo.name, ...row }));
const imports = relations.filter((r) => r.kind === "imports" && r.module !== null);
/** The external names the dependency index found imported (any ecosystem). */
const externalNames = new Set(Object.values(state.imported).flatMap((names) => Object.keys(names)));
/** The package-level name of an import's module (`urllib3.util` → urllib3, `@a/b/c` → @a/b). */
function packageOf(module: string): string {
  if (module.startsWith("@")) return module.split("/").slice(0, 2).join("/");
  return module.split(/[./]|::/)[0];
}
const external = (module: string) =>
  externalNames.has(packageOf(module)) || externalNames.has(module);
/** The import names of the packages it indexed (installed and read). */
const installedNames = new Set(state.packages.flatMap((p) => p.modules));
const installed = (module: string) =>
  installedNames.has(packageOf(module)) || installedNames.has(module) ||
  [...installedNames].some((name) => module.startsWith(`${name}/`));
/** Per file, the names its imports bind (alias, imported name, or a module's first segment). */
const bound = new Map<string, Map<string, string>>();
for (const i of imports) {
  const names = bound.get(i.path) ?? new Map<string, string>();
  if (i.alias) names.set(i.alias, i.module!);
  else if (i.target && i.target !== "*" && i.target !== i.module) names.set(i.target, i.module!);
  else names.set(i.module!.split(/[./]/)[0].replace(/^@/, ""), i.module!);
  bound.set(i.path, names);
}
const uses = relations.filter((r) => {
  if (r.kind === "imports") return false;
  const first = (r.receiver ?? r.target).split(/\.|::/)[0];
  return bound.get(r.path)?.has(first) ?? false;
});
const useModule = (r: RelationRecord) =>
  bound.get(r.path)!.get((r.receiver ?? r.target).split(/\.|::/)[0])!;

interface Tally {
  total: number;
  resolved: number;
  into_dependency: number;
}

/** Resolves every import and use once; `withDependencies` false sets the state file aside. */
function measure(withDependencies: boolean) {
  const path = dependencyStatePath(repo.location);
  const aside = `${path}.aside`;
  if (!withDependencies) Deno.renameSync(path, aside);
  try {
    const store = new ScopeStore(RequestScope.build(workspace, {}, {}));
    const modules = new ModuleResolver(store);
    const resolver = new Resolver(store, modules);
    const tally = (): Tally => ({ total: 0, resolved: 0, into_dependency: 0 });
    const result = {
      imports: tally(),
      uses: tally(),
      externalImports: tally(),
      externalUses: tally(),
      installedImports: tally(),
      installedUses: tally(),
      unresolved_external: new Map<string, number>(),
    };
    for (const relation of imports) {
      const outside = external(relation.module!);
      const present = installed(relation.module!);
      result.imports.total++;
      if (outside) result.externalImports.total++;
      if (present) result.installedImports.total++;
      const namespace = relation.target === "*" || relation.target === relation.module;
      let repoHit: string | null = null;
      if (namespace) {
        const target = modules.resolve(
          { repo: relation.repo, path: relation.path, language: relation.language },
          relation.module!,
        );
        if (target.status === "found") repoHit = target.repo;
      } else {
        const resolution = resolver.resolve(relation);
        if (resolution.status === "resolved") repoHit = resolution.symbol.repo;
      }
      if (repoHit !== null) {
        result.imports.resolved++;
        if (outside) result.externalImports.resolved++;
        if (present) result.installedImports.resolved++;
        if (store.dependency(repoHit)) result.imports.into_dependency++;
      } else {
        const top = relation.module!.split(/[./]/)[0];
        result.unresolved_external.set(top, (result.unresolved_external.get(top) ?? 0) + 1);
      }
    }
    for (const relation of uses) {
      const outside = external(useModule(relation));
      const present = installed(useModule(relation));
      result.uses.total++;
      if (outside) result.externalUses.total++;
      if (present) result.installedUses.total++;
      const resolution = resolver.resolve(relation);
      if (resolution.status === "resolved") {
        result.uses.resolved++;
        if (outside) result.externalUses.resolved++;
        if (present) result.installedUses.resolved++;
        if (store.dependency(resolution.symbol.repo)) result.uses.into_dependency++;
      }
    }
    return result;
  } finally {
    if (!withDependencies) Deno.renameSync(aside, path);
  }
}

const before = measure(false);
const after = measure(true);
const share = (t: Tally) => Math.round((t.resolved / Math.max(1, t.total)) * 1000) / 1000;
const dependencyBytes = state.packages.reduce((sum, p) => {
  for (const suffix of ["", "-wal"]) {
    try {
      sum += Deno.statSync(p.database + suffix).size;
    } catch { /* absent */ }
  }
  return sum;
}, 0);
const repoBytes = ["", "-wal"].reduce((sum, suffix) => {
  try {
    return sum + Deno.statSync(repo.location.databasePath + suffix).size;
  } catch {
    return sum;
  }
}, 0);
const result = {
  repository: root,
  packages: state.packages.map((p) => `${p.ecosystem}:${p.name}@${p.version} (${p.files} files)`),
  problems: state.problems,
  examples: state.examples,
  imports: {
    total: before.imports.total,
    resolved_before: before.imports.resolved,
    resolved_after: after.imports.resolved,
    share_before: share(before.imports),
    share_after: share(after.imports),
    into_dependency: after.imports.into_dependency,
  },
  imported_name_uses: {
    total: before.uses.total,
    resolved_before: before.uses.resolved,
    resolved_after: after.uses.resolved,
    share_before: share(before.uses),
    share_after: share(after.uses),
    into_dependency: after.uses.into_dependency,
  },
  external_imports: {
    total: before.externalImports.total,
    resolved_before: before.externalImports.resolved,
    resolved_after: after.externalImports.resolved,
    share_before: share(before.externalImports),
    share_after: share(after.externalImports),
  },
  external_name_uses: {
    total: before.externalUses.total,
    resolved_before: before.externalUses.resolved,
    resolved_after: after.externalUses.resolved,
    share_before: share(before.externalUses),
    share_after: share(after.externalUses),
  },
  installed_imports: {
    total: before.installedImports.total,
    resolved_before: before.installedImports.resolved,
    resolved_after: after.installedImports.resolved,
    share_before: share(before.installedImports),
    share_after: share(after.installedImports),
  },
  installed_name_uses: {
    total: before.installedUses.total,
    resolved_before: before.installedUses.resolved,
    resolved_after: after.installedUses.resolved,
    share_before: share(before.installedUses),
    share_after: share(after.installedUses),
  },
  still_unresolved_imports_by_top_name: Object.fromEntries(
    [...after.unresolved_external].sort((a, b) => b[1] - a[1]).slice(0, 15),
  ),
  index: {
    repository_files: report.files,
    repository_ms: Math.round(totalMs - (state.ms ?? 0)),
    repository_target_bytes: repoBytes,
    dependency_files: state.packages.reduce((sum, p) => sum + p.files, 0),
    dependency_source_bytes: state.packages.reduce((sum, p) => sum + p.bytes, 0),
    dependency_ms: state.ms,
    dependency_build_ms: state.index_ms,
    dependency_target_bytes: dependencyBytes,
  },
};
console.log(JSON.stringify(result, null, 2));
if (values.json) Deno.writeTextFileSync(values.json, JSON.stringify(result, null, 2) + "\n");
workspace.close();
Deno.removeSync(cache, { recursive: true });
