/**
 * Module-path ownership (the third level of evidence): which file or package of a
 * repository in scope an import path names. Relative imports, Python packages,
 * TS/JS paths and packages (`package.json` names, workspace packages,
 * `tsconfig` paths), Go module paths from `go.mod`, Rust `crate::` paths and
 * workspace crates, Java packages. Manifests are parsed as data, never run.
 */
import { dirname, posix } from "node:path";
import type { ScopeStore } from "./store.ts";
import { familyRules, languageFamily, type ModuleLookup } from "./families.ts";

/** Where an import path leads. */
export type ModuleTarget =
  | { status: "found"; repo: string; files: string[]; package: boolean; via: string }
  | { status: "external"; reason: string };

const JS_EXTENSIONS = [".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"];

interface JsPackage {
  repo: string;
  dir: string;
  name: string;
  entries: string[];
}

/** Resolves import paths for files of a scope; caches per request. */
export class ModuleResolver {
  readonly #store: ScopeStore;
  readonly #cache = new Map<string, ModuleTarget>();
  readonly #jsPackages = new Map<string, JsPackage[]>();
  readonly #pythonRoots = new Map<string, string[]>();
  readonly #goModules = new Map<string, { dir: string; module: string }[]>();
  readonly #crates = new Map<string, { dir: string; name: string }[]>();

  constructor(store: ScopeStore) {
    this.#store = store;
  }

  /** The file(s) an import path written in `from` names, within the scope of `from.repo`. */
  resolve(from: { repo: string; path: string; language: string | null }, specifier: string) {
    const rules = familyRules(from.language);
    const relative = rules.relativeImports === "dots"
      ? specifier.startsWith(".")
      : specifier.startsWith("./") || specifier.startsWith("../") || specifier === "." ||
        specifier === "..";
    const family = languageFamily(from.language) ?? "";
    const key = `${from.repo}\0${relative ? dirname(from.path) : ""}\0${family}\0${specifier}`;
    let target = this.#cache.get(key);
    if (!target) {
      target = this.#resolveUncached(from, rules.modules, specifier);
      this.#cache.set(key, target);
    }
    return target;
  }

  #resolveUncached(
    from: { repo: string; path: string },
    lookup: ModuleLookup,
    specifier: string,
  ): ModuleTarget {
    switch (lookup) {
      case "ecmascript":
        return this.#resolveJs(from, specifier);
      case "python":
        return this.#resolvePython(from, specifier);
      case "go":
        return this.#resolveGo(from, specifier);
      case "rust":
        return this.#resolveRust(from, specifier);
      case "jvm":
        return this.#resolveJvm(from, specifier);
      case "relative_file":
        return this.#resolveRelativeFile(from, specifier);
    }
  }

  // ---- TypeScript / JavaScript ----

  #resolveJs(from: { repo: string; path: string }, specifier: string): ModuleTarget {
    if (specifier.startsWith(".")) {
      const base = posix.normalize(posix.join(posix.dirname(from.path), specifier));
      const file = this.#jsFile(from.repo, base);
      return file
        ? {
          status: "found",
          repo: from.repo,
          files: [file],
          package: false,
          via: "relative import",
        }
        : { status: "external", reason: `relative import '${specifier}' names no indexed file` };
    }
    for (const alias of this.#tsconfigPaths(from.repo)) {
      const match = alias.pattern.exec(specifier);
      if (!match) continue;
      for (const replacement of alias.targets) {
        const file = this.#jsFile(from.repo, replacement.replace("*", match[1] ?? ""));
        if (file) {
          return {
            status: "found",
            repo: from.repo,
            files: [file],
            package: false,
            via: "tsconfig paths",
          };
        }
      }
    }
    const parts = specifier.split("/");
    const nameLength = specifier.startsWith("@") ? 2 : 1;
    const name = parts.slice(0, nameLength).join("/");
    const subpath = parts.slice(nameLength).join("/");
    for (const repo of this.#store.moduleScopeOf(from.repo)) {
      for (const pkg of this.#packagesOf(repo)) {
        if (pkg.name !== name) continue;
        const bases = subpath
          ? [posix.join(pkg.dir, subpath), posix.join(pkg.dir, "src", subpath)]
          : [...pkg.entries, posix.join(pkg.dir, "src/index"), posix.join(pkg.dir, "index")];
        for (const base of bases) {
          const file = this.#jsFile(repo, base);
          if (file) {
            const where = repo === from.repo ? "" : ` in repository '${repo}'`;
            return {
              status: "found",
              repo,
              files: [file],
              package: false,
              via: `package.json name '${name}'${where}`,
            };
          }
        }
      }
    }
    return { status: "external", reason: `package '${name}' is not in the resolver scope` };
  }

  /** The indexed file a JS/TS module base path names (extension and index probing). */
  #jsFile(repo: string, base: string): string | null {
    const paths = this.#store.paths(repo);
    const clean = base.replace(/^\.\//, "");
    if (paths.has(clean) && /\.[cm]?[jt]sx?$/.test(clean)) {
      // `./x.js` written in TypeScript sources names `x.ts`.
      const stem = clean.replace(/\.[cm]?jsx?$/, "");
      for (const ext of [".ts", ".tsx", ".mts", ".cts"]) {
        if (stem !== clean && paths.has(stem + ext)) return stem + ext;
      }
      return clean;
    }
    const stem = clean.replace(/\.[cm]?jsx?$/, "");
    for (const candidate of [stem, clean]) {
      for (const ext of JS_EXTENSIONS) if (paths.has(candidate + ext)) return candidate + ext;
      for (const ext of JS_EXTENSIONS) {
        if (paths.has(`${candidate}/index${ext}`)) return `${candidate}/index${ext}`;
      }
    }
    return null;
  }

  #packagesOf(repo: string): JsPackage[] {
    let packages = this.#jsPackages.get(repo);
    if (packages) return packages;
    packages = [];
    const manifests = [...this.#store.paths(repo)].filter((p) =>
      (p === "package.json" || p.endsWith("/package.json")) && !p.includes("node_modules/")
    );
    if (manifests.length === 0) manifests.push("package.json");
    for (const path of manifests.slice(0, 500)) {
      const text = this.#store.manifest(repo, path);
      if (text === null) continue;
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(text);
      } catch {
        continue;
      }
      if (typeof json.name !== "string") continue;
      const dir = posix.dirname(path) === "." ? "" : posix.dirname(path);
      const entries: string[] = [];
      const add = (value: unknown) => {
        if (typeof value !== "string") return;
        const entry = posix.normalize(posix.join(dir, value));
        entries.push(entry.replace(/\.d\.ts$/, "").replace(/\.[cm]?[jt]sx?$/, ""));
        // Built output usually mirrors the sources: dist/x.js ← src/x.ts.
        const source = entry.replace(/(^|\/)(dist|lib|build|out)\//, "$1src/");
        if (source !== entry) {
          entries.push(source.replace(/\.d\.ts$/, "").replace(/\.[cm]?[jt]sx?$/, ""));
        }
      };
      add(json.source);
      add(json.types);
      add(json.typings);
      const exportsField = json.exports as unknown;
      const dot = typeof exportsField === "object" && exportsField !== null
        ? (exportsField as Record<string, unknown>)["."] ?? exportsField
        : exportsField;
      if (typeof dot === "string") add(dot);
      else if (dot && typeof dot === "object") {
        for (const key of ["source", "types", "import", "module", "default", "require"]) {
          const value = (dot as Record<string, unknown>)[key];
          if (typeof value === "string") add(value);
          else if (value && typeof value === "object") {
            add((value as Record<string, unknown>).types);
            add((value as Record<string, unknown>).default);
          }
        }
      }
      add(json.module);
      add(json.main);
      packages.push({ repo, dir, name: json.name, entries });
    }
    this.#jsPackages.set(repo, packages);
    return packages;
  }

  #tsconfigPaths(repo: string): { pattern: RegExp; targets: string[] }[] {
    const text = this.#store.manifest(repo, "tsconfig.json");
    if (text === null) return [];
    let json: { compilerOptions?: { baseUrl?: string; paths?: Record<string, string[]> } };
    try {
      json = JSON.parse(
        text.replace(/^\s*\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "")
          .replace(/,(\s*[}\]])/g, "$1"),
      );
    } catch {
      return [];
    }
    const base = json.compilerOptions?.baseUrl ?? ".";
    return Object.entries(json.compilerOptions?.paths ?? {}).map(([key, targets]) => ({
      pattern: new RegExp(
        "^" + key.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace("*", "(.*)") + "$",
      ),
      targets: targets.map((t) => posix.normalize(posix.join(base, t))),
    }));
  }

  // ---- Python ----

  #resolvePython(from: { repo: string; path: string }, specifier: string): ModuleTarget {
    if (specifier.startsWith(".")) {
      const dots = /^\.+/.exec(specifier)![0].length;
      let dir = posix.dirname(from.path);
      for (let i = 1; i < dots; i++) dir = posix.dirname(dir);
      if (dir === ".") dir = "";
      const rest = specifier.slice(dots).split(".").filter(Boolean).join("/");
      const base = rest ? (dir ? `${dir}/${rest}` : rest) : dir;
      const found = this.#pythonFile(from.repo, base);
      return found
        ? {
          status: "found",
          repo: from.repo,
          files: [found],
          package: found.endsWith("__init__.py"),
          via: "relative import",
        }
        : { status: "external", reason: `relative import '${specifier}' names no indexed module` };
    }
    const relativePath = specifier.split(".").join("/");
    for (const repo of this.#store.moduleScopeOf(from.repo)) {
      for (const root of this.#pythonRootsOf(repo)) {
        const found = this.#pythonFile(repo, root + relativePath);
        if (found) {
          const where = repo === from.repo ? "" : ` in repository '${repo}'`;
          return {
            status: "found",
            repo,
            files: [found],
            package: found.endsWith("__init__.py"),
            via: `Python package path '${root}${relativePath}'${where}`,
          };
        }
      }
    }
    return { status: "external", reason: `module '${specifier}' is not in the resolver scope` };
  }

  #pythonFile(repo: string, base: string): string | null {
    const paths = this.#store.paths(repo);
    const prefix = base ? `${base}/` : "";
    for (
      const candidate of [
        `${base}.py`,
        `${base}.pyi`,
        `${prefix}__init__.py`,
        `${prefix}__init__.pyi`,
      ]
    ) {
      if (paths.has(candidate)) return candidate;
    }
    return null;
  }

  /** Directories that hold top-level Python packages or modules: "", "src/", and package parents. */
  #pythonRootsOf(repo: string): string[] {
    let roots = this.#pythonRoots.get(repo);
    if (roots) return roots;
    const paths = this.#store.paths(repo);
    const found = new Set<string>(["", "src/"]);
    for (const path of paths) {
      if (!path.endsWith("/__init__.py")) continue;
      const pkg = posix.dirname(path);
      const parent = posix.dirname(pkg);
      const parentPrefix = parent === "." ? "" : `${parent}/`;
      if (!paths.has(`${parentPrefix}__init__.py`)) found.add(parentPrefix);
    }
    roots = [...found].sort((a, b) => a.length - b.length);
    this.#pythonRoots.set(repo, roots);
    return roots;
  }

  // ---- Go ----

  #resolveGo(from: { repo: string; path: string }, specifier: string): ModuleTarget {
    for (const repo of this.#store.moduleScopeOf(from.repo)) {
      for (const mod of this.#goModulesOf(repo)) {
        if (specifier !== mod.module && !specifier.startsWith(`${mod.module}/`)) continue;
        const sub = specifier.slice(mod.module.length).replace(/^\//, "");
        const dir = [mod.dir, sub].filter(Boolean).join("/");
        const files = this.goPackageFiles(repo, dir);
        if (files.length > 0) {
          const where = repo === from.repo ? "" : ` in repository '${repo}'`;
          return {
            status: "found",
            repo,
            files,
            package: true,
            via: `go.mod module '${mod.module}'${where}`,
          };
        }
      }
    }
    return { status: "external", reason: `Go package '${specifier}' is not in the resolver scope` };
  }

  /** The non-test Go files of a directory: one package. */
  goPackageFiles(repo: string, dir: string): string[] {
    const files: string[] = [];
    for (const path of this.#store.paths(repo)) {
      const parent = posix.dirname(path) === "." ? "" : posix.dirname(path);
      if (parent === dir && path.endsWith(".go") && !path.endsWith("_test.go")) files.push(path);
    }
    return files.sort();
  }

  #goModulesOf(repo: string): { dir: string; module: string }[] {
    let modules = this.#goModules.get(repo);
    if (modules) return modules;
    modules = [];
    const manifests = new Set(["go.mod"]);
    for (const path of this.#store.paths(repo)) {
      if (path.endsWith("/go.mod")) manifests.add(path);
    }
    for (const path of manifests) {
      const text = this.#store.manifest(repo, path);
      const match = text ? /^\s*module\s+("?)([^\s"]+)\1/m.exec(text) : null;
      if (match) {
        modules.push({
          dir: posix.dirname(path) === "." ? "" : posix.dirname(path),
          module: match[2],
        });
      }
    }
    this.#goModules.set(repo, modules);
    return modules;
  }

  // ---- Rust ----

  #resolveRust(from: { repo: string; path: string }, specifier: string): ModuleTarget {
    const segments = specifier.split("::").filter(Boolean);
    let repo = from.repo;
    let srcDir: string | null = null;
    let rest = segments;
    if (segments[0] === "crate" || segments[0] === "self" || segments[0] === "super") {
      const crate = this.#cratesOf(from.repo).filter((c) =>
        from.path.startsWith(c.dir ? `${c.dir}/` : "")
      )
        .sort((a, b) => b.dir.length - a.dir.length)[0];
      srcDir = crate ? [crate.dir, "src"].filter(Boolean).join("/") : "src";
      if (segments[0] !== "crate") {
        let dir = posix.dirname(from.path);
        if (segments[0] === "super") dir = posix.dirname(dir);
        srcDir = dir === "." ? "" : dir;
      }
      rest = segments.slice(1);
    } else {
      for (const candidate of this.#store.moduleScopeOf(from.repo)) {
        const crate = this.#cratesOf(candidate).find((c) => c.name === segments[0]);
        if (crate) {
          repo = candidate;
          srcDir = [crate.dir, "src"].filter(Boolean).join("/");
          rest = segments.slice(1);
          break;
        }
      }
    }
    if (srcDir === null) {
      return { status: "external", reason: `crate '${segments[0]}' is not in the resolver scope` };
    }
    const paths = this.#store.paths(repo);
    // Longest module prefix that is a file: `a::b::f` → src/a/b.rs or src/a/b/mod.rs.
    for (let n = rest.length; n >= 0; n--) {
      const base = [srcDir, ...rest.slice(0, n)].filter(Boolean).join("/");
      const candidates = n === 0
        ? [`${base}/lib.rs`, `${base}/main.rs`, `${base}/mod.rs`]
        : [`${base}.rs`, `${base}/mod.rs`];
      const file = candidates.find((c) => paths.has(c));
      if (file) {
        return {
          status: "found",
          repo,
          files: [file],
          package: false,
          via: `Rust module path '${specifier}'`,
        };
      }
    }
    return { status: "external", reason: `Rust path '${specifier}' names no indexed module` };
  }

  #cratesOf(repo: string): { dir: string; name: string }[] {
    let crates = this.#crates.get(repo);
    if (crates) return crates;
    crates = [];
    const manifests = [...this.#store.paths(repo)].filter((p) =>
      p === "Cargo.toml" || p.endsWith("/Cargo.toml")
    );
    if (manifests.length === 0) manifests.push("Cargo.toml");
    for (const path of manifests) {
      const text = this.#store.manifest(repo, path);
      const match = text ? /\[package\][^[]*?\bname\s*=\s*"([^"]+)"/s.exec(text) : null;
      if (match) {
        crates.push({
          dir: posix.dirname(path) === "." ? "" : posix.dirname(path),
          name: match[1].replace(/-/g, "_"),
        });
      }
    }
    this.#crates.set(repo, crates);
    return crates;
  }

  // ---- Java / JVM packages ----

  #resolveJvm(from: { repo: string; path: string }, specifier: string): ModuleTarget {
    const relative = specifier.replace(/\.\*$/, "").split(".").join("/");
    for (const repo of this.#store.moduleScopeOf(from.repo)) {
      const files: string[] = [];
      for (const path of this.#store.paths(repo)) {
        const stem = path.replace(/\.(java|kt|scala)$/, "");
        if (stem === path) continue;
        if (stem === relative || stem.endsWith(`/${relative}`)) {
          return {
            status: "found",
            repo,
            files: [path],
            package: false,
            via: `package path '${relative}'`,
          };
        }
        const dir = posix.dirname(path);
        if (dir === relative || dir.endsWith(`/${relative}`)) files.push(path);
      }
      if (files.length > 0) {
        return { status: "found", repo, files, package: true, via: `package '${specifier}'` };
      }
    }
    return { status: "external", reason: `package '${specifier}' is not in the resolver scope` };
  }

  #resolveRelativeFile(from: { repo: string; path: string }, specifier: string): ModuleTarget {
    const base = posix.normalize(posix.join(posix.dirname(from.path), specifier));
    const paths = this.#store.paths(from.repo);
    if (paths.has(base)) {
      return {
        status: "found",
        repo: from.repo,
        files: [base],
        package: false,
        via: "relative path",
      };
    }
    return { status: "external", reason: `module '${specifier}' is not in the resolver scope` };
  }
}
