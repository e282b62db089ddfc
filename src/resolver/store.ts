/**
 * The resolver's only door to the targets: read-only queries over the
 * repositories of the caller's scope, with the context's path rule applied to
 * every row before anything ranks or counts it. Every query is keyed by a name,
 * a file or a symbol, so the rows read follow what the answer touches.
 */
import { dirname } from "node:path";
import {
  type GenerationCache,
  generationCache,
  KeptResolutions,
  resolutionGeneration,
} from "./generation_cache.ts";
import { ownString } from "../engine/lines.ts";
import { readConfinedText } from "../indexer/confined.ts";
import { pathJudge } from "../indexer/inventory.ts";
import { visibleView } from "../workspace/visible.ts";
import type { StoredRelation, SymbolRow, TargetReader } from "../store/reader.ts";
import type { Repository } from "../workspace/workspace.ts";
import type { RequestScope } from "../workspace/scope.ts";
import { type DependencyRecord, dependencyStateStamp, loadDependencyState } from "../deps/mod.ts";
import type { RelationRecord, SymbolRecord } from "./types.ts";

/** A dependency package target as the resolver reads it: a repository of its own, by name. */
interface DependencyRepository {
  repository: Repository;
  record: DependencyRecord;
  /** The visible repository whose source imports it (the one its paths are shown under). */
  owner: string;
}

/** The prefix of a dependency target's name in the resolver (never a repository's name). */
const DEPENDENCY_PREFIX = "dep:";

/** What source order is read from: a stored symbol or relation. */
interface SourceRow {
  path: string;
  startLine: number;
  startCol: number;
  endLine: number;
  endCol: number;
  kind: string;
  id?: string;
  target?: string;
}

function bySource(a: SourceRow, b: SourceRow): number {
  return compare(a.path, b.path) || a.startLine - b.startLine || a.startCol - b.startCol ||
    a.endLine - b.endLine || a.endCol - b.endCol || compare(a.kind, b.kind) ||
    compare(a.id ?? a.target ?? "", b.id ?? b.target ?? "");
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The inventory's rules as they apply to a manifest read from the working tree. */
const MANIFEST_RULES = { include: [], exclude: [], maxFileSize: 1_000_000 };

export class ScopeStore {
  readonly #scope: RequestScope;
  readonly #visible: Map<string, Repository>;
  readonly #scopes = new Map<string, string[]>();
  readonly #texts = new Map<string, string | null>();
  readonly #lines = new Map<string, string[] | null>();
  readonly #breaks = new Map<string, Int32Array>();
  readonly #memo = new Map<string, unknown>();
  /** The reader of each repository this request has read, once opened. */
  readonly #readers = new Map<string, TargetReader>();
  /** The generation cache of each repository this request has read. */
  readonly #caches = new Map<string, GenerationCache>();
  /** By repository, then id (no key is built per row: a file's rows all land here). */
  readonly #symbols = new Map<string, Map<string, SymbolRecord | null>>();
  readonly #fileSymbols = new Map<string, SymbolRecord[]>();
  readonly #fileNames = new Map<string, Map<string, SymbolRecord[]>>();
  readonly #fileChildren = new Map<string, Map<string, SymbolRecord[]>>();
  readonly #fileImports = new Map<string, RelationRecord[]>();
  readonly #named = new Map<string, SymbolRecord[]>();
  /** Rows read from targets while answering: the measured cost of a request. */
  rowsRead = 0;
  /** Repositories whose target could not be read. */
  readonly problems = new Map<string, string>();
  /** Dependency targets that could not be read (not part of the caller's scope proper). */
  readonly dependencyProblems = new Map<string, string>();
  readonly #dependencies = new Map<string, DependencyRepository>();
  readonly #paths = new Map<string, ReadonlySet<string>>();
  readonly #dependenciesOf = new Map<string, string[]>();
  /** Resolutions kept across requests for this request's targets (null: none; unset: not asked). */
  #kept: KeptResolutions | null | undefined;
  /** Set once a manifest was read from the working tree, which no generation covers. */
  #workingTreeRead = false;
  /** The stamp of the dependency state each repository's packages were read from this request. */
  readonly #dependencyStamps = new Map<string, string>();

  constructor(scope: RequestScope) {
    this.#scope = scope;
    this.#visible = new Map(scope.visible.map((r) => [r.name, r]));
  }

  /** A visible repository by name, or null (an invisible one is answered as absent). */
  repository(name: string): Repository | null {
    return this.#visible.get(name) ?? null;
  }

  /** The resolver scope of a repository: itself plus its visible project siblings. */
  scopeOf(repo: string): string[] {
    let scope = this.#scopes.get(repo);
    if (!scope) {
      scope = this.#scope.resolverScope(repo).map((r) => r.name);
      this.#scopes.set(repo, scope);
    }
    return scope;
  }

  allowed(repo: string, path: string): boolean {
    const dependency = this.#dependencies.get(repo);
    if (dependency) {
      // A package is seen through the repository that imports it: a caller restricted to some
      // paths of that repository sees it only where those paths cover where it lies.
      return !this.#scope.pathRestricted(dependency.owner) ||
        (dependency.record.inRepository &&
          this.#scope.allowPath(dependency.owner, `${dependency.record.display}/${path}`));
    }
    return this.#scope.allowPath(repo, path);
  }

  /**
   * Resolutions kept across requests, when what this request's resolver may read is the visible
   * part of whole targets at their generations: every repository the caller sees only in part
   * has a path rule with a key, every target could be read, and no manifest came from the working
   * tree. The key names each visible target's generation, the caller's path rule of it, each
   * repository's resolver scope (project siblings come from the workspace's configuration, not
   * from a target) and the packages it imports, by the stamp of the dependency state they were
   * read from (package targets are built only by a refresh, which writes that state again):
   * callers who see different parts never share one. Null otherwise.
   */
  keptResolutions(): KeptResolutions | null {
    if (this.#workingTreeRead || this.problems.size > 0 || this.dependencyProblems.size > 0) {
      return null;
    }
    if (this.#kept !== undefined) return this.#kept;
    this.#kept = null;
    const access = this.#scope.access;
    // A path filter without a word on which repositories it restricts: never shared.
    if (access.allowPath && !access.pathRestricted) return null;
    const parts: string[] = [];
    for (const repo of this.#visible.keys()) {
      const rule = this.#scope.pathRule(repo);
      if (rule && rule.key === null) return null;
      // A target that cannot be read keeps nothing, and is named only if the walk reads it.
      const generation = this.#read(repo, (reader) => resolutionGeneration(reader), false);
      if (generation === null) return null;
      parts.push(
        `${repo}=${generation}:${this.scopeOf(repo).join(",")}:${
          rule ? `rule ${rule.key}` : "whole"
        }`,
      );
      const packages = this.dependenciesOf(repo);
      if (packages.length > 0) {
        // Package targets are built only by a refresh that then writes its state again.
        const stamp = this.#dependencyStamps.get(repo);
        if (stamp === undefined) return null;
        parts.push(`packages of ${repo}=${stamp}`);
      }
      for (const name of packages) {
        const { record } = this.#dependencies.get(name)!;
        parts.push(`${name}=${record.database}:${record.display}:${record.inRepository}`);
      }
    }
    this.#kept = new KeptResolutions(parts.join("\0"));
    return this.#kept;
  }

  // ---- dependency targets -------------------------------------------------------------------

  /** The dependency targets of a visible repository (its imported packages), by resolver name. */
  dependenciesOf(repo: string): string[] {
    let names = this.#dependenciesOf.get(repo);
    if (names) return names;
    names = [];
    const owner = this.#visible.get(repo);
    const state = owner ? loadDependencyState(owner.location) : null;
    const stamp = state ? dependencyStateStamp(state) : undefined;
    if (stamp) this.#dependencyStamps.set(repo, stamp);
    for (const record of state?.packages ?? []) {
      if (record.error) continue;
      const name = `${DEPENDENCY_PREFIX}${repo}:${record.id}`;
      this.#dependencies.set(name, {
        owner: repo,
        record,
        repository: {
          name,
          root: record.root,
          location: {
            root: record.root,
            directory: dirname(record.database),
            databasePath: record.database,
          },
        },
      });
      names.push(name);
    }
    this.#dependenciesOf.set(repo, names);
    return names;
  }

  /** The package record of a dependency target, or null for a repository. */
  dependency(repo: string): (DependencyRecord & { owner: string }) | null {
    const found = this.#dependencies.get(repo);
    return found ? { ...found.record, owner: found.owner } : null;
  }

  /**
   * The repositories an import written in `repo` may resolve into: its resolver scope, then the
   * packages those repositories import (a package's own imports: itself, its owner's scope and
   * the owner's other packages).
   */
  moduleScopeOf(repo: string): string[] {
    const dependency = this.#dependencies.get(repo);
    const base = dependency ? this.scopeOf(dependency.owner) : this.scopeOf(repo);
    const out = dependency ? [repo, ...base] : [...base];
    for (const member of base) {
      for (const name of this.dependenciesOf(member)) if (!out.includes(name)) out.push(name);
    }
    return out;
  }

  /**
   * The repositories that can hold uses of a definition in `repo`: those whose scope includes
   * it; for a package, the package itself and the repositories that import it.
   */
  usersOf(repo: string): string[] {
    const dependency = this.#dependencies.get(repo);
    if (dependency) {
      // The importing repository's own uses first, then the package's uses of itself.
      const owners = [dependency.owner, ...this.scopeOf(dependency.owner)];
      return [...new Set(owners.filter((name) => this.dependenciesOf(name).includes(repo))), repo];
    }
    return this.scopeOf(repo).filter((other) => this.scopeOf(other).includes(repo));
  }

  /**
   * Shows records of dependency targets as the caller sees them: under the repository that
   * imports the package, at the package's path there (`.venv/…/site-packages/urllib3/…`,
   * `node_modules/hono/…`, `$GOMODCACHE/…`), with `source_kind: dependency` and the package
   * named. Evidence reached through a package is at most module-path ownership (level 3): the
   * dependency index, not the repository's own source, decided which files own the module.
   */
  presentDependencies<T>(value: T, depth = 0): T {
    if (this.#dependencies.size === 0 || depth > 16) return value;
    if (typeof value === "string") return this.#presentText(value) as T;
    if (Array.isArray(value)) {
      return value.map((item) => this.presentDependencies(item, depth + 1)) as T;
    }
    if (typeof value !== "object" || value === null) return value;
    const record = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(record)) {
      out[key] = this.presentDependencies(item, depth + 1);
    }
    const dependency = typeof record.repo === "string" ? this.#dependencies.get(record.repo) : null;
    if (dependency) {
      const { record: pkg, owner } = dependency;
      out.repo = owner;
      if (typeof record.path === "string") {
        out.path = `${pkg.display}/${record.path}`;
        out.dependency = {
          ecosystem: pkg.ecosystem,
          name: pkg.name,
          version: pkg.version,
          path: record.path,
        };
        if ("source_kind" in record || "snippet" in record) {
          out.source_kind = /\.(md|rst|txt|markdown)$/i.test(record.path) ? "doc" : "dependency";
        }
      }
      // Inside a crate its own paths start at `crate::`; from outside they start at its name.
      if (pkg.ecosystem === "cargo" && typeof record.symbol === "string") {
        out.symbol = record.symbol.replace(/^crate::/, `${pkg.modules[0]}::`);
      }
      if (typeof record.evidence_level === "number" && record.evidence_level < 3) {
        out.evidence = "module_path";
        out.evidence_level = 3;
      }
    }
    return out as T;
  }

  /** `dep:<owner>:<id>:<path>` written in a message, as the caller sees it. */
  #presentText(text: string): string {
    if (!text.includes(DEPENDENCY_PREFIX)) return text;
    let out = text;
    for (const [name, { record, owner }] of this.#dependencies) {
      out = out.replaceAll(`${name}:`, `${owner}:${record.display}/`);
    }
    return out;
  }

  /** Definitions named `name` in the given repositories. */
  symbolsNamed(repos: string[], name: string): SymbolRecord[] {
    const out: SymbolRecord[] = [];
    for (const repo of repos) {
      const key = `${repo}\0${name}`;
      let rows = this.#named.get(key);
      if (!rows) {
        rows = this.#symbolRows(repo, `named\0${name}`, (reader) => reader.symbolsNamed(name));
        this.#named.set(key, rows);
      }
      out.push(...rows);
    }
    return out;
  }

  /** Definitions whose qualified name is `qualified` or ends with `.qualified` / `::qualified`. */
  symbolsQualified(repos: string[], qualified: string): SymbolRecord[] {
    const last = qualified.split(/\.|::|\//).pop() ?? qualified;
    return this.symbolsNamed(repos, last).filter((s) =>
      s.qualified === qualified || s.qualified.endsWith(`.${qualified}`) ||
      s.qualified.endsWith(`::${qualified}`) || s.qualified.endsWith(`/${qualified}`)
    );
  }

  /**
   * Names close to `name` (same first letters), for suggestions: at most
   * `limit` visible ones per repository (for a path-restricted caller, read on
   * until `limit` visible rows are found, so hidden rows never push one out).
   */
  namesLike(repos: string[], prefix: string, limit: number): SymbolRecord[] {
    const out: SymbolRecord[] = [];
    for (const repo of repos) {
      if (!this.#restricted(repo)) {
        out.push(
          ...this.#symbolRows(repo, null, (reader) => reader.symbolsWithPrefix(prefix, limit)),
        );
        continue;
      }
      // The first `limit` visible rows in the index's order, which hidden rows do not change.
      for (let want = limit * 4;; want *= 4) {
        const read = this.#read(repo, (reader) => reader.symbolsWithPrefix(prefix, want)) ?? [];
        const visible = read.filter((row) => this.allowed(repo, row.path));
        if (visible.length >= limit || read.length < want) {
          out.push(...this.#symbolRows(repo, null, () => visible.slice(0, limit)));
          break;
        }
      }
    }
    return out;
  }

  /**
   * The definition with an id. With `path`, the file it is written in (a relation's enclosing
   * definition): it is taken from that file's rows, kept for the generation (the resolver reads
   * them next), and counted as the one row a lookup by id reads.
   */
  symbolById(repo: string, id: string, path?: string): SymbolRecord | null {
    const known = this.#symbolsOf(repo);
    let symbol = known.get(id);
    if (symbol === undefined) {
      const inFile = path !== undefined && this.allowed(repo, path)
        ? this.#read(
          repo,
          (reader) => this.#fileRecords(repo, reader, path).find((s) => s.id === id),
        )
        : undefined;
      if (inFile) {
        this.rowsRead++;
        symbol = inFile;
      } else {
        const rows = this.#symbolRows(repo, `id\0${id}`, (reader) => reader.symbolById(id));
        symbol = rows[0] ?? null;
      }
      known.set(id, symbol);
    }
    return symbol;
  }

  /** A file's definitions before the path rule, as `symbolsInFile` keeps them for the generation. */
  #fileRecords(repo: string, reader: TargetReader, path: string): SymbolRecord[] {
    return this.#records(
      repo,
      reader,
      `file\0${path}`,
      (reader) => reader.definitionsOfFile(path),
      (row) => symbolRecord(repo, row),
    );
  }

  #symbolsOf(repo: string): Map<string, SymbolRecord | null> {
    let known = this.#symbols.get(repo);
    if (!known) this.#symbols.set(repo, known = new Map());
    return known;
  }

  symbolsInFile(repo: string, path: string): SymbolRecord[] {
    const key = `${repo}\0${path}`;
    let rows = this.#fileSymbols.get(key);
    if (!rows) {
      rows = this.allowed(repo, path)
        ? this.#symbolRows(repo, `file\0${path}`, (reader) => reader.definitionsOfFile(path))
        : [];
      const known = this.#symbolsOf(repo);
      for (const row of rows) known.set(row.id, row);
      this.#fileSymbols.set(key, rows);
    }
    return rows;
  }

  /** The definitions of a file named `name`, in source order. */
  symbolsInFileNamed(repo: string, path: string, name: string): SymbolRecord[] {
    const key = `${repo}\0${path}`;
    let byName = this.#fileNames.get(key);
    if (!byName) {
      byName = new Map();
      for (const symbol of this.symbolsInFile(repo, path)) {
        const list = byName.get(symbol.name);
        if (list) list.push(symbol);
        else byName.set(symbol.name, [symbol]);
      }
      this.#fileNames.set(key, byName);
    }
    return byName.get(name) ?? [];
  }

  /** The definitions directly inside a symbol, in source order. */
  childrenOf(symbol: SymbolRecord): SymbolRecord[] {
    const key = `${symbol.repo}\0${symbol.path}`;
    let byParent = this.#fileChildren.get(key);
    if (!byParent) {
      byParent = new Map();
      for (const s of this.symbolsInFile(symbol.repo, symbol.path)) {
        if (s.parentId === null) continue;
        const list = byParent.get(s.parentId);
        if (list) list.push(s);
        else byParent.set(s.parentId, [s]);
      }
      this.#fileChildren.set(key, byParent);
    }
    return [...(byParent.get(symbol.id) ?? [])];
  }

  /** Import relations of a file (its bindings). */
  importsOfFile(repo: string, path: string): RelationRecord[] {
    const key = `${repo}\0${path}`;
    let rows = this.#fileImports.get(key);
    if (!rows) {
      rows = this.#relationRows(repo, `imports\0${path}`, (reader) => reader.importsOfFile(path));
      this.#fileImports.set(key, rows);
    }
    return rows;
  }

  /** Relations of a file (any kind). */
  relationsInFile(repo: string, path: string): RelationRecord[] {
    return this.#relationRows(repo, `relations\0${path}`, (reader) => reader.relationsInFile(path));
  }

  /**
   * Relations whose written target is one of `names`. Several names are read name by name
   * (each name's rows kept for the generation, as a read of that name alone keeps them) and
   * merged: a relation has one target, and rows that source order cannot tell apart name the
   * same target and come from one name's read, in the order that read gives them, so the
   * merge is the rows and order of one read of every name.
   */
  relationsTargeting(repo: string, names: string[]): RelationRecord[] {
    if (names.length === 0) return [];
    return this.#relationRows(
      repo,
      `targeting\0${names.join("\0")}`,
      (reader) =>
        names.length === 1
          ? reader.relationsTargeting(names)
          : names.flatMap((name) => this.#targetRecords(repo, reader, name)),
    );
  }

  /** The rows of `relationsTargeting(repo, [name])` before the path rule, kept for the generation. */
  #targetRecords(repo: string, reader: TargetReader, name: string): RelationRecord[] {
    return this.#records(
      repo,
      reader,
      `targeting\0${name}`,
      (reader) => reader.relationsTargeting([name]),
      (row) => ({ repo, ...row }),
    );
  }

  /** Relations written inside a symbol. */
  relationsFrom(symbol: SymbolRecord): RelationRecord[] {
    return this.#relationRows(
      symbol.repo,
      `from\0${symbol.id}\0${symbol.path}`,
      (reader) => reader.relationsFrom(symbol.id, symbol.path),
    );
  }

  /**
   * Import relations naming `name` with an alias (`import { name as alias }`). With
   * `targetsNext` (the caller reads `relationsTargeting` of the name next), they are taken
   * from every relation targeting the name, read once for both.
   */
  aliasesOf(repo: string, name: string, targetsNext = false): RelationRecord[] {
    return this.#relationRows(
      repo,
      `aliases\0${name}`,
      (reader) =>
        targetsNext
          ? this.#targetRecords(repo, reader, name).filter((row) =>
            row.kind === "imports" && row.alias !== null
          )
          : reader.aliasesOf(name),
    );
  }

  /** The committed text of a file, or null when absent or not visible. */
  fileText(repo: string, path: string): string | null {
    const key = `${repo}\0${path}`;
    if (!this.#texts.has(key)) {
      const text = this.allowed(repo, path)
        ? this.#read(repo, (reader) => reader.fileText(path))
        : null;
      this.#texts.set(key, text ?? null);
    }
    return this.#texts.get(key)!;
  }

  /** The committed text of a file split into lines (kept for the request), or null. */
  fileLines(repo: string, path: string): string[] | null {
    const key = `${repo}\0${path}`;
    let lines = this.#lines.get(key);
    if (lines === undefined) {
      lines = this.fileText(repo, path)?.split("\n") ?? null;
      this.#lines.set(key, lines);
    }
    return lines;
  }

  /**
   * Lines `start..end` (1-based, inclusive) of a file's committed text, or null
   * when absent or not visible; kept for the generation (a walk reads the same
   * definitions' lines again and again, rarely whole files).
   */
  linesOf(repo: string, path: string, start: number, end: number): string[] | null {
    if (!this.allowed(repo, path)) return null;
    return this.derived(
      repo,
      `lines\0${path}\0${start}\0${end}`,
      // Copies, not views of the file's text: the file must not stay alive with its lines. Cut
      // from the text at its line breaks (as `fileLines(…).slice(start - 1, end)` would give
      // them) without splitting the whole file.
      () => {
        const text = this.fileText(repo, path);
        if (text === null) return null;
        const breaks = this.#lineBreaks(repo, path, text);
        const [first, last] = sliceRange(breaks.length + 1, start - 1, end);
        const lines: string[] = [];
        for (let line = first; line < last; line++) {
          const from = line === 0 ? 0 : breaks[line - 1] + 1;
          const to = line < breaks.length ? breaks[line] : text.length;
          lines.push(ownString(text.slice(from, to)));
        }
        return lines;
      },
      (lines) => lines?.length ?? 0,
    );
  }

  /** Where the line breaks of a file's text are (kept for the request). */
  #lineBreaks(repo: string, path: string, text: string): Int32Array {
    const key = `${repo}\0${path}`;
    let breaks = this.#breaks.get(key);
    if (!breaks) {
      let count = 0;
      for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) count++;
      breaks = new Int32Array(count);
      count = 0;
      for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) {
        breaks[count++] = at;
      }
      this.#breaks.set(key, breaks);
    }
    return breaks;
  }

  /**
   * Lines `start..end` (1-based, inclusive) of a file's committed text, at most
   * `maxLines` of them, joined by `\n` ("" when absent or not visible): the
   * snippet of a hit, as `LineIndex.slice` cuts it, from lines kept for the generation.
   */
  snippet(repo: string, path: string, start: number, end: number, maxLines: number): string {
    if (!this.allowed(repo, path)) return "";
    const count = this.derived(
      repo,
      `line-count\0${path}`,
      () => {
        const text = this.fileText(repo, path);
        return text === null ? 0 : this.#lineBreaks(repo, path, text).length + 1;
      },
      () => 0,
    );
    const first = Math.max(1, start);
    const last = Math.min(end, start + maxLines - 1, count);
    if (first > count || last < first) return "";
    return this.linesOf(repo, path, first, last)?.join("\n") ?? "";
  }

  /**
   * A value derived from what this request may read, made once per request
   * (e.g. what a file's imports bind to a name): `key` must name everything it
   * is made from.
   */
  memo<T>(key: string, make: () => T): T {
    if (this.#memo.has(key)) return this.#memo.get(key) as T;
    const value = make();
    this.#memo.set(key, value);
    return value;
  }

  /**
   * A value derived from a repository's committed texts or rows (e.g. a
   * function's bracket depths), made once per generation of its target and
   * kept on its reader: `key` must name everything it is made from, and the
   * caller must only ask for it about what it may see.
   */
  derived<T>(repo: string, key: string, make: () => T, weigh: (value: T) => number): T {
    const kept = this.#read(
      repo,
      (reader) => this.#generationCache(repo, reader).get(`${repo}\0${key}`, make, weigh),
    );
    return kept ?? make();
  }

  /**
   * A manifest file (tsconfig.json, package.json, go.mod, Cargo.toml,
   * pyproject.toml): the committed text, else the working-tree bytes (go.mod is
   * not indexed as text) of a file the inventory would index — inside the root,
   * no symlink on the way, one hard link, not a secret, at most 1 MB — and the
   * caller may see. Manifests are read, never run.
   */
  manifest(repo: string, path: string): string | null {
    const text = this.#manifest(repo, path);
    const dependency = this.#dependencies.get(repo)?.record;
    if (text === null || !dependency || dependency.ecosystem !== "npm" || path !== "package.json") {
      return text;
    }
    // A package answers to the name it was imported by (`@types/ws` for `ws`, an npm alias).
    try {
      return JSON.stringify({ ...JSON.parse(text), name: dependency.modules[0] });
    } catch {
      return text;
    }
  }

  #manifest(repo: string, path: string): string | null {
    const indexed = this.fileText(repo, path);
    if (indexed !== null) return indexed;
    const repository = this.#visible.get(repo) ?? this.#dependencies.get(repo)?.repository;
    if (!repository || !this.allowed(repo, path)) return null;
    // What follows depends on the working tree: no resolution of this request is kept.
    this.#workingTreeRead = true;
    try {
      const verdict = pathJudge(repository.root, MANIFEST_RULES)(path);
      if (verdict === null || "reason" in verdict) return null;
      // Read at its own path inside the root, whatever was swapped since the judgement.
      return readConfinedText(repository.root, path, { maxBytes: MANIFEST_RULES.maxFileSize });
    } catch {
      return null;
    }
  }

  /**
   * Indexed paths of a repository the caller may see (kept by its reader for
   * the generation; for a path-restricted caller, the visible part's).
   */
  paths(repo: string): ReadonlySet<string> {
    let paths = this.#paths.get(repo);
    if (!paths) {
      const rule = this.#dependencies.has(repo) ? null : this.#scope.pathRule(repo);
      const read = this.#read(repo, (reader) =>
        rule ? visibleView(reader, rule).paths : reader.paths()) ?? new Set<string>();
      // A package seen through a path-restricted repository: its visible paths only.
      paths = this.#restricted(repo) && !rule
        ? new Set([...read].filter((path) =>
          this.allowed(repo, path)
        ))
        : read;
      this.#paths.set(repo, paths);
    }
    return paths;
  }

  /** Whether the caller sees only some paths of a repository (or of a package's owner). */
  #restricted(repo: string): boolean {
    const dependency = this.#dependencies.get(repo);
    return this.#scope.pathRestricted(dependency ? dependency.owner : repo);
  }

  /**
   * The generation cache of a repository's reader, looked up once per request (looking it up
   * checks the generation, a statement per call).
   */
  #generationCache(repo: string, reader: TargetReader): GenerationCache {
    let cache = this.#caches.get(repo);
    if (!cache || this.#readers.get(repo) !== reader) {
      cache = generationCache(reader);
      this.#caches.set(repo, cache);
    }
    return cache;
  }

  /** `fn` of the repository's reader, or null; `record`: a target that cannot be read is named. */
  #read<T>(repo: string, fn: (reader: TargetReader) => T, record = true): T | null {
    const dependency = this.#dependencies.get(repo)?.repository;
    const repository = this.#visible.get(repo) ?? dependency;
    if (!repository) return null;
    // The reader a request opened first answers its further reads (opening one checks the
    // target's files, which a walk of thousands of reads would repeat); a read it fails goes
    // back through the workspace, which tells a damaged target from any other error.
    const pinned = this.#readers.get(repo);
    if (pinned) {
      try {
        pinned.hold();
        return fn(pinned);
      } catch {
        this.#readers.delete(repo);
      }
    }
    const answer = this.#scope.workspace.withReader(repository, (reader) => {
      const value = fn(reader);
      this.#readers.set(repo, reader);
      return value;
    });
    if (answer.problem) {
      if (record) (dependency ? this.dependencyProblems : this.problems).set(repo, answer.problem);
      return null;
    }
    return answer.value;
  }

  /**
   * Rows of one read in one repository minus those on hidden paths, in source
   * order (path, position): the order rows were written in follows the order
   * Workers finished parsing, and an answer — what it reads first, and so
   * `rows_read` — must not. The rows kept are counted as read (a hidden row is
   * never counted: the count is shown). A read with a `key` (naming the read
   * and its arguments) is made once per generation of the target, as records in
   * source order before any path rule, and kept on its reader; each request
   * filters it for its caller.
   */
  #rows<T extends SourceRow, R extends SourceRow>(
    repo: string,
    key: string | null,
    read: (reader: TargetReader) => T[],
    record: (row: T) => R,
  ): R[] {
    const all = this.#read(repo, (reader) => this.#records(repo, reader, key, read, record)) ?? [];
    const rows = all.filter((row) => this.allowed(repo, row.path));
    this.rowsRead += rows.length;
    return rows;
  }

  /**
   * A read's rows as records in source order, before the path rule: kept for the generation
   * under `key` (null: read each time).
   */
  #records<T extends SourceRow, R extends SourceRow>(
    repo: string,
    reader: TargetReader,
    key: string | null,
    read: (reader: TargetReader) => T[],
    record: (row: T) => R,
  ): R[] {
    const make = () => [...read(reader)].sort(bySource).map(record);
    return key === null
      ? make()
      : this.#generationCache(repo, reader).get(`${repo}\0${key}`, make, (rows) => rows.length);
  }

  #symbolRows(
    repo: string,
    key: string | null,
    read: (reader: TargetReader) => SymbolRow[],
  ): SymbolRecord[] {
    return this.#rows(repo, key, read, (row) => symbolRecord(repo, row));
  }

  #relationRows(
    repo: string,
    key: string | null,
    read: (reader: TargetReader) => StoredRelation[],
  ): RelationRecord[] {
    return this.#rows(repo, key, read, (row) => ({ repo, ...row }));
  }
}

/** The `[first, last)` indices `Array.prototype.slice(start, end)` takes of `length` items. */
export function sliceRange(length: number, start: number, end: number): [number, number] {
  const first = start < 0 ? Math.max(length + start, 0) : Math.min(start, length);
  const last = end < 0 ? Math.max(length + end, 0) : Math.min(end, length);
  return [first, Math.max(first, last)];
}

/** A stored definition as a record of `repo`. */
function symbolRecord(repo: string, row: SymbolRow): SymbolRecord {
  return {
    repo,
    path: row.path,
    language: row.language,
    id: row.id,
    name: row.name,
    qualified: row.qualified,
    kind: row.kind,
    startLine: row.startLine,
    startCol: row.startCol,
    endLine: row.endLine,
    endCol: row.endCol,
    signature: row.signature,
    parentId: row.parentId,
    exported: row.exported,
  };
}
