/**
 * The resolver's only door to the targets: read-only queries over the
 * repositories of the caller's scope, with the context's path rule applied to
 * every row before anything ranks or counts it. Every query is keyed by a name,
 * a file or a symbol, so the rows read follow what the answer touches.
 */
import type { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { readMeta } from "../store/target.ts";
import type { Repository, Workspace } from "../workspace/workspace.ts";
import { type ActionContext, resolverScope, visibleRepositories } from "../actions/context.ts";
import type { RelationRecord, SymbolRecord } from "./types.ts";

const SYMBOL_COLUMNS = `s.id, s.name, s.qualified_name, s.kind, s.start_line, s.start_col,
  s.end_line, s.end_col, s.signature, s.parent_id, s.exported, f.path, f.language`;
const RELATION_COLUMNS = `r.kind, r.from_symbol, r.target, r.receiver, r.module, r.alias,
  r.start_line, r.start_col, r.end_line, r.end_col, f.path, f.language`;

/** Paths of a repository per generation, shared by requests (paths only, never text). */
const pathCache = new Map<string, { generation: number; paths: Set<string> }>();

export class ScopeStore {
  readonly #workspace: Workspace;
  readonly #context: ActionContext;
  readonly #visible: Map<string, Repository>;
  readonly #scopes = new Map<string, string[]>();
  readonly #texts = new Map<string, string | null>();
  readonly #symbols = new Map<string, SymbolRecord | null>();
  readonly #fileSymbols = new Map<string, SymbolRecord[]>();
  readonly #fileImports = new Map<string, RelationRecord[]>();
  readonly #named = new Map<string, SymbolRecord[]>();
  readonly #generations = new Map<string, number>();
  /** Rows read from targets while answering: the measured cost of a request. */
  rowsRead = 0;
  /** Repositories whose target could not be read. */
  readonly problems = new Map<string, string>();

  constructor(workspace: Workspace, context: ActionContext) {
    this.#workspace = workspace;
    this.#context = context;
    this.#visible = new Map(visibleRepositories(workspace, context).map((r) => [r.name, r]));
  }

  /** A visible repository by name, or null (an invisible one is answered as absent). */
  repository(name: string): Repository | null {
    return this.#visible.get(name) ?? null;
  }

  visibleNames(): string[] {
    return [...this.#visible.keys()];
  }

  /** The resolver scope of a repository: itself plus its visible project siblings. */
  scopeOf(repo: string): string[] {
    let scope = this.#scopes.get(repo);
    if (!scope) {
      const active = this.#visible.get(repo);
      scope = active
        ? resolverScope(this.#workspace, active, this.#context).map((r) => r.name)
        : [];
      this.#scopes.set(repo, scope);
    }
    return scope;
  }

  allowed(repo: string, path: string): boolean {
    return this.#visible.has(repo) && (this.#context.allowPath?.(repo, path) ?? true);
  }

  generation(repo: string): number {
    let generation = this.#generations.get(repo);
    if (generation === undefined) {
      generation = this.#read(repo, (db) => Number(readMeta(db, "generation") ?? "0")) ?? 0;
      this.#generations.set(repo, generation);
    }
    return generation;
  }

  /** Definitions named `name` in the given repositories. */
  symbolsNamed(repos: string[], name: string): SymbolRecord[] {
    const out: SymbolRecord[] = [];
    for (const repo of repos) {
      const key = `${repo}\0${name}`;
      let rows = this.#named.get(key);
      if (!rows) {
        rows = this.#symbolRows(
          repo,
          `SELECT ${SYMBOL_COLUMNS} FROM code_symbols s JOIN source_files f ON f.id = s.file_id
            WHERE s.name = ?`,
          name,
        );
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
    const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
    const out: SymbolRecord[] = [];
    for (const repo of repos) {
      out.push(...this.#symbolRows(
        repo,
        `SELECT ${SYMBOL_COLUMNS} FROM code_symbols s JOIN source_files f ON f.id = s.file_id
          WHERE s.name LIKE ? ESCAPE '\\' LIMIT ${limit}`,
        `${escaped}%`,
      ));
    }
    return out;
  }

  symbolById(repo: string, id: string): SymbolRecord | null {
    const key = `${repo}\0${id}`;
    if (!this.#symbols.has(key)) {
      const rows = this.#symbolRows(
        repo,
        `SELECT ${SYMBOL_COLUMNS} FROM code_symbols s JOIN source_files f ON f.id = s.file_id
          WHERE s.id = ?`,
        id,
      );
      this.#symbols.set(key, rows[0] ?? null);
    }
    return this.#symbols.get(key)!;
  }

  symbolsInFile(repo: string, path: string): SymbolRecord[] {
    const key = `${repo}\0${path}`;
    let rows = this.#fileSymbols.get(key);
    if (!rows) {
      rows = this.allowed(repo, path)
        ? this.#symbolRows(
          repo,
          `SELECT ${SYMBOL_COLUMNS} FROM code_symbols s JOIN source_files f ON f.id = s.file_id
            WHERE f.path = ? ORDER BY s.start_line, s.start_col`,
          path,
        )
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
      rows = this.#relationRows(
        repo,
        `SELECT ${RELATION_COLUMNS} FROM code_relations r JOIN source_files f ON f.id = r.file_id
          WHERE f.path = ? AND r.kind = 'imports'`,
        path,
      );
      this.#fileImports.set(key, rows);
    }
    return rows;
  }

  /** Relations of a file (any kind). */
  relationsInFile(repo: string, path: string): RelationRecord[] {
    return this.#relationRows(
      repo,
      `SELECT ${RELATION_COLUMNS} FROM code_relations r JOIN source_files f ON f.id = r.file_id
        WHERE f.path = ? ORDER BY r.start_line, r.start_col`,
      path,
    );
  }

  /** Relations whose written target is one of `names`. */
  relationsTargeting(repo: string, names: string[]): RelationRecord[] {
    if (names.length === 0) return [];
    const marks = names.map(() => "?").join(", ");
    return this.#relationRows(
      repo,
      `SELECT ${RELATION_COLUMNS} FROM code_relations r JOIN source_files f ON f.id = r.file_id
        WHERE r.target IN (${marks})`,
      ...names,
    );
  }

  /** Relations written inside a symbol. */
  relationsFrom(symbol: SymbolRecord): RelationRecord[] {
    return this.#relationRows(
      symbol.repo,
      `SELECT ${RELATION_COLUMNS} FROM code_relations r JOIN source_files f ON f.id = r.file_id
        WHERE r.from_symbol = ? AND f.path = ? ORDER BY r.start_line, r.start_col`,
      symbol.id,
      symbol.path,
    );
  }

  /** Import relations naming `name` with an alias (`import { name as alias }`). */
  aliasesOf(repo: string, name: string): RelationRecord[] {
    return this.#relationRows(
      repo,
      `SELECT ${RELATION_COLUMNS} FROM code_relations r JOIN source_files f ON f.id = r.file_id
        WHERE r.target = ? AND r.kind = 'imports' AND r.alias IS NOT NULL`,
      name,
    );
  }

  /** The committed text of a file, or null when absent or not visible. */
  fileText(repo: string, path: string): string | null {
    const key = `${repo}\0${path}`;
    if (!this.#texts.has(key)) {
      const text = this.allowed(repo, path)
        ? this.#read(repo, (db) => {
          const row = db.prepare("SELECT text FROM source_files WHERE path = ?").get(path) as
            | { text: string }
            | undefined;
          return row?.text ?? null;
        })
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

  /** Indexed paths of a repository (cached per generation; paths only). */
  paths(repo: string): Set<string> {
    const repository = this.#visible.get(repo);
    if (!repository) return new Set();
    const generation = this.generation(repo);
    const key = repository.location.databasePath;
    const cached = pathCache.get(key);
    if (cached && cached.generation === generation) return cached.paths;
    const paths = new Set(
      this.#read(
        repo,
        (db) =>
          (db.prepare("SELECT path FROM source_files").all() as { path: string }[]).map((r) =>
            r.path
          ),
      ) ?? [],
    );
    if (pathCache.size > 64) pathCache.clear();
    pathCache.set(key, { generation, paths });
    return paths;
  }

  #read<T>(repo: string, fn: (db: DatabaseSync) => T): T | null {
    const repository = this.#visible.get(repo);
    if (!repository) return null;
    const answer = this.#workspace.withReader(repository, fn);
    if (answer.problem) {
      this.problems.set(repo, answer.problem);
      return null;
    }
    return answer.value;
  }

  /** Rows of a query in one repository, counted as read, minus those on hidden paths. */
  #rows<T>(
    repo: string,
    sql: string,
    args: string[],
    record: (raw: Record<string, unknown>, path: string) => T,
  ): T[] {
    const rows = this.#read(repo, (db) => db.prepare(sql).all(...args)) ?? [];
    this.rowsRead += rows.length;
    const out: T[] = [];
    for (const raw of rows as Record<string, unknown>[]) {
      const path = raw.path as string;
      if (this.allowed(repo, path)) out.push(record(raw, path));
    }
    return out;
  }

  #symbolRows(repo: string, sql: string, ...args: string[]): SymbolRecord[] {
    return this.#rows(repo, sql, args, (raw, path) => ({
      repo,
      path,
      language: raw.language as string | null,
      id: raw.id as string,
      name: raw.name as string,
      qualified: raw.qualified_name as string,
      kind: raw.kind as string,
      startLine: Number(raw.start_line),
      startCol: Number(raw.start_col),
      endLine: Number(raw.end_line),
      endCol: Number(raw.end_col),
      signature: raw.signature as string | null,
      parentId: raw.parent_id as string | null,
      exported: Number(raw.exported) === 1,
    }));
  }

  #relationRows(repo: string, sql: string, ...args: string[]): RelationRecord[] {
    return this.#rows(repo, sql, args, (raw, path) => ({
      repo,
      path,
      language: raw.language as string | null,
      kind: raw.kind as string,
      fromSymbol: raw.from_symbol as string | null,
      target: raw.target as string,
      receiver: raw.receiver as string | null,
      module: raw.module as string | null,
      alias: raw.alias as string | null,
      startLine: Number(raw.start_line),
      startCol: Number(raw.start_col),
      endLine: Number(raw.end_line),
      endCol: Number(raw.end_col),
    }));
  }
}
