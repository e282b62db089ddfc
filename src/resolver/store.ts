/**
 * The resolver's only door to the targets: read-only queries over the
 * repositories of the caller's scope, with the context's path rule applied to
 * every row before anything ranks or counts it. Every query is keyed by a name,
 * a file or a symbol, so the rows read follow what the answer touches.
 */
import { join } from "node:path";
import type { StoredRelation, StoredSymbol, TargetReader } from "../store/reader.ts";
import type { Repository } from "../workspace/workspace.ts";
import type { RequestScope } from "../workspace/scope.ts";
import type { RelationRecord, SymbolRecord } from "./types.ts";

export class ScopeStore {
  readonly #scope: RequestScope;
  readonly #visible: Map<string, Repository>;
  readonly #scopes = new Map<string, string[]>();
  readonly #texts = new Map<string, string | null>();
  readonly #symbols = new Map<string, SymbolRecord | null>();
  readonly #fileSymbols = new Map<string, SymbolRecord[]>();
  readonly #fileImports = new Map<string, RelationRecord[]>();
  readonly #named = new Map<string, SymbolRecord[]>();
  /** Rows read from targets while answering: the measured cost of a request. */
  rowsRead = 0;
  /** Repositories whose target could not be read. */
  readonly problems = new Map<string, string>();

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
    return this.#scope.allowPath(repo, path);
  }

  /** Definitions named `name` in the given repositories. */
  symbolsNamed(repos: string[], name: string): SymbolRecord[] {
    const out: SymbolRecord[] = [];
    for (const repo of repos) {
      const key = `${repo}\0${name}`;
      let rows = this.#named.get(key);
      if (!rows) {
        rows = this.#symbolRows(repo, (reader) => reader.symbolsNamed(name));
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

  /** Names close to `name` (same first letters), for suggestions. */
  namesLike(repos: string[], prefix: string, limit: number): SymbolRecord[] {
    const out: SymbolRecord[] = [];
    for (const repo of repos) {
      out.push(...this.#symbolRows(repo, (reader) => reader.symbolsWithPrefix(prefix, limit)));
    }
    return out;
  }

  symbolById(repo: string, id: string): SymbolRecord | null {
    const key = `${repo}\0${id}`;
    if (!this.#symbols.has(key)) {
      const rows = this.#symbolRows(repo, (reader) => reader.symbolById(id));
      this.#symbols.set(key, rows[0] ?? null);
    }
    return this.#symbols.get(key)!;
  }

  symbolsInFile(repo: string, path: string): SymbolRecord[] {
    const key = `${repo}\0${path}`;
    let rows = this.#fileSymbols.get(key);
    if (!rows) {
      rows = this.allowed(repo, path)
        ? this.#symbolRows(repo, (reader) => reader.symbolsInFile(path))
        : [];
      for (const row of rows) this.#symbols.set(`${repo}\0${row.id}`, row);
      this.#fileSymbols.set(key, rows);
    }
    return rows;
  }

  childrenOf(symbol: SymbolRecord): SymbolRecord[] {
    return this.symbolsInFile(symbol.repo, symbol.path).filter((s) => s.parentId === symbol.id);
  }

  /** Import relations of a file (its bindings). */
  importsOfFile(repo: string, path: string): RelationRecord[] {
    const key = `${repo}\0${path}`;
    let rows = this.#fileImports.get(key);
    if (!rows) {
      rows = this.#relationRows(repo, (reader) => reader.importsOfFile(path));
      this.#fileImports.set(key, rows);
    }
    return rows;
  }

  /** Relations of a file (any kind). */
  relationsInFile(repo: string, path: string): RelationRecord[] {
    return this.#relationRows(repo, (reader) => reader.relationsInFile(path));
  }

  /** Relations whose written target is one of `names`. */
  relationsTargeting(repo: string, names: string[]): RelationRecord[] {
    if (names.length === 0) return [];
    return this.#relationRows(repo, (reader) => reader.relationsTargeting(names));
  }

  /** Relations written inside a symbol. */
  relationsFrom(symbol: SymbolRecord): RelationRecord[] {
    return this.#relationRows(
      symbol.repo,
      (reader) => reader.relationsFrom(symbol.id, symbol.path),
    );
  }

  /** Import relations naming `name` with an alias (`import { name as alias }`). */
  aliasesOf(repo: string, name: string): RelationRecord[] {
    return this.#relationRows(repo, (reader) => reader.aliasesOf(name));
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

  /**
   * A manifest file (package.json, go.mod, Cargo.toml, pyproject.toml): the
   * committed text, else the working-tree bytes (go.mod is not indexed as text).
   * Manifests are read, never run.
   */
  manifest(repo: string, path: string): string | null {
    const indexed = this.fileText(repo, path);
    if (indexed !== null) return indexed;
    const repository = this.#visible.get(repo);
    if (!repository || !this.allowed(repo, path)) return null;
    try {
      const info = Deno.statSync(join(repository.root, path));
      if (!info.isFile || info.size > 1_000_000) return null;
      return Deno.readTextFileSync(join(repository.root, path));
    } catch {
      return null;
    }
  }

  /** Indexed paths of a repository (kept by its reader for the generation; paths only). */
  paths(repo: string): Set<string> {
    return this.#read(repo, (reader) => reader.paths()) ?? new Set();
  }

  #read<T>(repo: string, fn: (reader: TargetReader) => T): T | null {
    const repository = this.#visible.get(repo);
    if (!repository) return null;
    const answer = this.#scope.workspace.withReader(repository, fn);
    if (answer.problem) {
      this.problems.set(repo, answer.problem);
      return null;
    }
    return answer.value;
  }

  /** Rows of one read in one repository, counted as read, minus those on hidden paths. */
  #rows<T extends { path: string }>(repo: string, read: (reader: TargetReader) => T[]): T[] {
    const rows = this.#read(repo, read) ?? [];
    this.rowsRead += rows.length;
    return rows.filter((row) => this.allowed(repo, row.path));
  }

  #symbolRows(repo: string, read: (reader: TargetReader) => StoredSymbol[]): SymbolRecord[] {
    return this.#rows(repo, read).map((row) => ({
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
    }));
  }

  #relationRows(repo: string, read: (reader: TargetReader) => StoredRelation[]): RelationRecord[] {
    return this.#rows(repo, read).map((row) => ({ repo, ...row }));
  }
}
