/**
 * The one reader of a repository target: every read query of the product, as
 * typed values, on a read-only connection to the last committed generation.
 *
 * It also holds the caches derived from one generation (the file table, the
 * path set, and whatever a higher layer memoizes, such as the in-memory vector
 * index): they are dropped together when the generation the reader sees moves.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { readMeta } from "./meta.ts";

/** One indexed file, without its text. */
export interface FileEntry {
  id: number;
  path: string;
  language: string | null;
  capability: "graph" | "search";
  size: number;
  lineCount: number;
}

/** Every file of a generation by id, and how many chunks it has. */
export interface FileTable {
  files: Map<number, FileEntry>;
  chunks: number;
}

/** A chunk's place in its file. */
export interface ChunkEntry {
  id: number;
  fileId: number;
  path: string;
  startLine: number;
  endLine: number;
  kind: string;
  symbolPath: string | null;
}

/** A chunk that holds a full-text term, with its bm25 rank (negative: lower is better). */
export interface TermMatch {
  chunkId: number;
  fileId: number;
  rank: number;
}

/** How often a full-text term occurs in one chunk, per FTS column. */
export interface TermOccurrence {
  chunkId: number;
  fileId: number;
  /** Occurrences among the chunk's code terms. */
  terms: number;
  /** Occurrences among its path terms. */
  path: number;
}

/** A chunk's size in full-text tokens (code and path terms together), with its file. */
export interface ChunkSize {
  chunkId: number;
  fileId: number;
  tokens: number;
}

/** Where a definition of a name starts. */
export interface DefinitionSite {
  name: string;
  fileId: number;
  line: number;
}

/** A stored vector of a chunk (float32 bytes). */
export interface VectorRow {
  chunkId: number;
  fileId: number;
  vector: Uint8Array;
}

/** A file that may hold a grep match. */
export interface CandidateFile {
  id: number;
  path: string;
  contentHash: string;
}

/** A definition as stored, with its file. */
export interface StoredSymbol {
  path: string;
  language: string | null;
  id: string;
  name: string;
  qualified: string;
  kind: string;
  startLine: number;
  startCol: number;
  endLine: number;
  endCol: number;
  signature: string | null;
  parentId: string | null;
  exported: boolean;
  /** The definition's doc comment or docstring, as extracted. */
  doc: string | null;
}

/**
 * How often a file writes one relation: its kind, the last segment of the
 * target as written, the module (imports), and whether it was used on a receiver.
 */
export interface RelationCount {
  fileId: number;
  kind: string;
  target: string;
  module: string | null;
  member: boolean;
  count: number;
}

/** A relation as its file wrote it, with that file. */
export interface StoredRelation {
  path: string;
  language: string | null;
  kind: string;
  fromSymbol: string | null;
  target: string;
  receiver: string | null;
  module: string | null;
  alias: string | null;
  startLine: number;
  startCol: number;
  endLine: number;
  endCol: number;
}

/** A definition found by workspace symbol search, with its match tier (0 is best). */
export interface SymbolMatch {
  id: string;
  name: string;
  qualified: string;
  kind: string;
  startLine: number;
  endLine: number;
  signature: string | null;
  doc: string | null;
  exported: boolean;
  path: string;
  language: string | null;
  /** 0 exact name or qualified name, 1 name ignoring case, 2 qualified suffix, 3 prefix. */
  tier: number;
}

/** Whole-target counts for `status`. */
export interface TargetCounts {
  files: number;
  chunks: number;
  symbols: number;
  relations: number;
  bytes: number;
  /** Files per language ("text" for none) and per capability. */
  languages: Record<string, number>;
  capabilities: Record<string, number>;
}

/** A file that failed to index, and why. */
export interface IndexErrorEntry {
  path: string;
  stage: string;
  message: string;
}

/** Per file id, how many rows of a kind it owns. */
export type PerFileTable = "chunks" | "symbols" | "relations";

/** The key of a value memoized on a reader for one generation. */
export class MemoKey<T> {
  /** Only to carry `T`; never read. */
  declare readonly value: T;
  constructor(readonly name: string) {}
}

const FILE_TABLE = new MemoKey<FileTable>("store:files");
const PATHS = new MemoKey<Set<string>>("store:paths");

const SYMBOL_COLUMNS = `s.id, s.name, s.qualified_name, s.kind, s.start_line, s.start_col,
  s.end_line, s.end_col, s.signature, s.parent_id, s.exported, s.doc, f.path, f.language`;
const RELATION_COLUMNS = `r.kind, r.from_symbol, r.target, r.receiver, r.module, r.alias,
  r.start_line, r.start_col, r.end_line, r.end_col, f.path, f.language`;
const SYMBOLS_FROM = "FROM code_symbols s JOIN source_files f ON f.id = s.file_id";
const RELATIONS_FROM = "FROM code_relations r JOIN source_files f ON f.id = r.file_id";
const PER_FILE_TABLES: Record<PerFileTable, string> = {
  chunks: "source_chunks",
  symbols: "code_symbols",
  relations: "code_relations",
};

type Row = Record<string, unknown>;

/** Prepared statements a reader keeps at most. */
const MAX_STATEMENTS = 256;

export class TargetReader {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  readonly #memo = new Map<string, unknown>();
  #memoGeneration = -1;
  /** Whether the temp `fts5vocab` instance table exists on this connection. */
  #instances = false;

  /** Wraps an open read-only connection (see `openTargetReader`). */
  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  close(): void {
    this.#statements.clear();
    this.#memo.clear();
    this.#db.close();
  }

  // ---- meta -------------------------------------------------------------------------------

  /** A meta value, or null. */
  meta(key: string): string | null {
    return readMeta(this.#db, key);
  }

  /** A meta value holding JSON, or `fallback` when absent or unreadable. */
  metaJson<T>(key: string, fallback: T): T {
    try {
      return (JSON.parse(this.meta(key) ?? "null") as T | null) ?? fallback;
    } catch {
      return fallback;
    }
  }

  /** The committed generation (0 before the first commit). */
  generation(): number {
    return Number(this.meta("generation") ?? "0");
  }

  /** The git HEAD the generation was indexed at, or null. */
  head(): string | null {
    return this.meta("head") || null;
  }

  /**
   * A value derived from the current generation, made once and kept until the
   * generation moves (then every memoized value is dropped together).
   */
  memo<T>(key: MemoKey<T>, make: () => T): T {
    const generation = this.generation();
    if (generation !== this.#memoGeneration) {
      this.#memo.clear();
      this.#memoGeneration = generation;
    }
    if (this.#memo.has(key.name)) return this.#memo.get(key.name) as T;
    const value = make();
    this.#memo.set(key.name, value);
    return value;
  }

  /** Drops one memoized value (e.g. one that may still fill in without a new generation). */
  forget(key: MemoKey<unknown>): void {
    this.#memo.delete(key.name);
  }

  // ---- files ------------------------------------------------------------------------------

  /** Every file's path, language, capability and size, and the chunk count (per generation). */
  fileTable(): FileTable {
    return this.memo(FILE_TABLE, () => {
      const files = new Map<number, FileEntry>();
      for (
        const row of this.#all(
          "SELECT id, path, language, capability, size, line_count FROM source_files",
        )
      ) {
        const id = Number(row.id);
        files.set(id, {
          id,
          path: row.path as string,
          language: row.language as string | null,
          capability: row.capability as "graph" | "search",
          size: Number(row.size),
          lineCount: Number(row.line_count),
        });
      }
      const chunks = Number(this.#get("SELECT count(*) AS n FROM source_chunks")?.n ?? 0);
      return { files, chunks };
    });
  }

  /** Every indexed path (per generation). */
  paths(): Set<string> {
    return this.memo(PATHS, () => new Set([...this.fileTable().files.values()].map((f) => f.path)));
  }

  /** The committed text of a file, or null when it is not indexed. */
  fileText(path: string): string | null {
    const row = this.#get("SELECT text FROM source_files WHERE path = ?", path);
    return row ? row.text as string : null;
  }

  // ---- chunks and full text ---------------------------------------------------------------

  /** The innermost chunk of a file that covers a line, or null. */
  chunkAt(fileId: number, line: number): number | null {
    const row = this.#get(
      `SELECT id FROM source_chunks WHERE file_id = ? AND start_line <= ? AND end_line >= ?
        ORDER BY end_line - start_line LIMIT 1`,
      fileId,
      line,
      line,
    );
    return row ? Number(row.id) : null;
  }

  /** Chunks by id (in table order), with their file's path. */
  chunks(ids: number[]): ChunkEntry[] {
    if (ids.length === 0) return [];
    const files = this.fileTable().files;
    return this.#all(
      `SELECT id, file_id, start_line, end_line, kind, symbol_path FROM source_chunks
        WHERE id IN (SELECT value FROM json_each(?))`,
      JSON.stringify(ids),
    ).map((row) => ({
      id: Number(row.id),
      fileId: Number(row.file_id),
      path: files.get(Number(row.file_id))?.path ?? "",
      startLine: Number(row.start_line),
      endLine: Number(row.end_line),
      kind: row.kind as string,
      symbolPath: row.symbol_path as string | null,
    }));
  }

  /** How many chunks hold a full-text term (0 when none). */
  termDocuments(term: string): number {
    return Number(this.#get("SELECT doc FROM source_chunks_vocab WHERE term = ?", term)?.doc ?? 0);
  }

  /** The best `limit` chunks for one FTS5 expression, by bm25 (code terms 1, path terms 2). */
  termMatches(expression: string, limit: number): TermMatch[] {
    return this.#all(
      `SELECT f.rowid AS id, c.file_id AS file_id, bm25(source_chunks_fts, 1.0, 2.0) AS rank
         FROM source_chunks_fts f JOIN source_chunks c ON c.id = f.rowid
        WHERE source_chunks_fts MATCH ? ORDER BY rank LIMIT ?`,
      expression,
      limit,
    ).map((row) => ({
      chunkId: Number(row.id),
      fileId: Number(row.file_id),
      rank: row.rank as number,
    }));
  }

  /**
   * Every chunk holding a full-text term, with how often it occurs there per
   * column (for statistics over a subset of the chunks, which FTS5's own bm25
   * cannot give: it counts every row). Read through an `fts5vocab` instance
   * table in the connection's temp schema; the target is not written.
   */
  termOccurrences(term: string): TermOccurrence[] {
    if (!this.#instances) {
      this.#db.exec(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.source_chunks_instances USING fts5vocab(main, source_chunks_fts, instance)",
      );
      this.#instances = true;
    }
    return this.#all(
      `SELECT i.doc AS id, c.file_id AS file_id,
              sum(i.col = 'terms') AS terms, sum(i.col = 'path') AS path
         FROM temp.source_chunks_instances i JOIN source_chunks c ON c.id = i.doc
        WHERE i.term = ? GROUP BY i.doc ORDER BY i.doc`,
      term,
    ).map((row) => ({
      chunkId: Number(row.id),
      fileId: Number(row.file_id),
      terms: Number(row.terms),
      path: Number(row.path),
    }));
  }

  /** Every chunk's size in full-text tokens (FTS5's stored document sizes), by chunk id. */
  chunkSizes(): ChunkSize[] {
    return this.#all(
      `SELECT c.id AS id, c.file_id AS file_id, d.sz AS sz FROM source_chunks c
         JOIN source_chunks_fts_docsize d ON d.id = c.id ORDER BY c.id`,
    ).map((row) => ({
      chunkId: Number(row.id),
      fileId: Number(row.file_id),
      tokens: sumVarints(row.sz as Uint8Array),
    }));
  }

  /** Where definitions of any of `names` start. */
  definitionSites(names: string[]): DefinitionSite[] {
    return this.#all(
      `SELECT s.name AS name, s.file_id AS file_id, s.start_line AS line
         FROM code_symbols s WHERE s.name IN (SELECT value FROM json_each(?))`,
      JSON.stringify(names),
    ).map((row) => ({
      name: row.name as string,
      fileId: Number(row.file_id),
      line: Number(row.line),
    }));
  }

  // ---- vectors ----------------------------------------------------------------------------

  /** Every chunk's stored vector for a model, streamed. */
  vectorRows(model: string): Iterable<VectorRow> {
    const rows = this.#db.prepare(
      `SELECT c.id AS id, c.file_id AS file_id, v.vector AS vector
         FROM source_chunks c JOIN chunk_vectors v
           ON v.content_hash = c.content_hash AND v.model = ?`,
    ).iterate(model) as Iterable<{ id: number; file_id: number; vector: Uint8Array }>;
    return (function* () {
      for (const row of rows) {
        yield { chunkId: Number(row.id), fileId: Number(row.file_id), vector: row.vector };
      }
    })();
  }

  // ---- grep -------------------------------------------------------------------------------

  /**
   * Files whose text holds a trigram expression (FTS5 over the committed text,
   * case-insensitive), or every file when `expression` is null; by path.
   */
  trigramCandidates(expression: string | null): CandidateFile[] {
    const rows = expression === null
      ? this.#all("SELECT id, path, content_hash FROM source_files ORDER BY path")
      : this.#all(
        `SELECT f.id AS id, f.path AS path, f.content_hash AS content_hash FROM source_trigram
           JOIN source_files f ON f.id = source_trigram.rowid
          WHERE source_trigram MATCH ? ORDER BY f.path`,
        expression,
      );
    return rows.map((row) => ({
      id: Number(row.id),
      path: row.path as string,
      contentHash: row.content_hash as string,
    }));
  }

  // ---- symbols ----------------------------------------------------------------------------

  /**
   * Workspace symbol search, streamed best first: exact name or qualified name,
   * then name ignoring case, then qualified-name suffix, then name prefix; within
   * a tier exported first, then shorter qualified names.
   */
  symbolSearch(query: string, kind?: string): Iterable<SymbolMatch> {
    const escaped = query.replace(/[\\%_]/g, (c) => `\\${c}`);
    const sql = `
      SELECT s.id, s.name, s.qualified_name, s.kind, s.start_line, s.end_line, s.signature, s.doc,
             s.exported, f.path, f.language,
             CASE WHEN s.name = :q OR s.qualified_name = :q THEN 0
                  WHEN s.name = :q COLLATE NOCASE THEN 1
                  WHEN s.qualified_name LIKE '%.' || :escaped ESCAPE '\\'
                    OR s.qualified_name LIKE '%::' || :escaped ESCAPE '\\' THEN 2
                  ELSE 3 END AS tier
        ${SYMBOLS_FROM}
       WHERE (s.name = :q COLLATE NOCASE
              OR s.name LIKE :escaped || '%' ESCAPE '\\'
              OR s.qualified_name = :q
              OR s.qualified_name LIKE '%.' || :escaped ESCAPE '\\'
              OR s.qualified_name LIKE '%::' || :escaped ESCAPE '\\') ${
      kind ? "AND s.kind = :kind" : ""
    }
       ORDER BY tier, s.exported DESC, length(s.qualified_name)`;
    const bind: Record<string, string> = { q: query, escaped };
    if (kind) bind.kind = kind;
    const rows = this.#db.prepare(sql).iterate(bind) as Iterable<Row>;
    return (function* () {
      for (const row of rows) {
        yield {
          id: row.id as string,
          name: row.name as string,
          qualified: row.qualified_name as string,
          kind: row.kind as string,
          startLine: Number(row.start_line),
          endLine: Number(row.end_line),
          signature: row.signature as string | null,
          doc: row.doc as string | null,
          exported: Number(row.exported) === 1,
          path: row.path as string,
          language: row.language as string | null,
          tier: Number(row.tier),
        };
      }
    })();
  }

  /** Definitions named exactly `name`. */
  symbolsNamed(name: string): StoredSymbol[] {
    return this.#symbols(`SELECT ${SYMBOL_COLUMNS} ${SYMBOLS_FROM} WHERE s.name = ?`, name);
  }

  /** Definitions whose name starts with `prefix`, at most `limit`. */
  symbolsWithPrefix(prefix: string, limit: number): StoredSymbol[] {
    const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
    return this.#symbols(
      `SELECT ${SYMBOL_COLUMNS} ${SYMBOLS_FROM} WHERE s.name LIKE ? ESCAPE '\\' LIMIT ?`,
      `${escaped}%`,
      limit,
    );
  }

  /** The definition with an id, as a list of zero or one. */
  symbolById(id: string): StoredSymbol[] {
    return this.#symbols(`SELECT ${SYMBOL_COLUMNS} ${SYMBOLS_FROM} WHERE s.id = ?`, id);
  }

  /** The definitions of a file, in source order. */
  symbolsInFile(path: string): StoredSymbol[] {
    return this.#symbols(
      `SELECT ${SYMBOL_COLUMNS} ${SYMBOLS_FROM} WHERE f.path = ? ORDER BY s.start_line, s.start_col`,
      path,
    );
  }

  /** Every definition of the given kinds, by path and position (for the quality scripts). */
  symbolsOfKinds(kinds: string[]): StoredSymbol[] {
    return this.#symbols(
      `SELECT ${SYMBOL_COLUMNS} ${SYMBOLS_FROM} WHERE s.kind IN (SELECT value FROM json_each(?))
        ORDER BY f.path, s.start_line, s.start_col, s.name`,
      JSON.stringify(kinds),
    );
  }

  /** Every definition of the target, by path and position (repository maps and outlines). */
  allSymbols(): StoredSymbol[] {
    return this.#symbols(
      `SELECT ${SYMBOL_COLUMNS} ${SYMBOLS_FROM} ORDER BY f.path, s.start_line, s.start_col`,
    );
  }

  // ---- relations --------------------------------------------------------------------------

  /**
   * Every relation of the target counted per file, kind, target, module and
   * receiver-or-not (the reference graph of a repository map, without sites).
   */
  relationCounts(): RelationCount[] {
    return this.#all(
      `SELECT file_id, kind, target, module, receiver IS NOT NULL AS member, count(*) AS n
         FROM code_relations GROUP BY file_id, kind, target, module, member`,
    ).map((row) => ({
      fileId: Number(row.file_id),
      kind: row.kind as string,
      target: row.target as string,
      module: row.module as string | null,
      member: Number(row.member) === 1,
      count: Number(row.n),
    }));
  }

  /** Relations whose written target is one of `names`. */
  relationsTargeting(names: string[]): StoredRelation[] {
    if (names.length === 0) return [];
    const marks = names.map(() => "?").join(", ");
    return this.#relations(
      `SELECT ${RELATION_COLUMNS} ${RELATIONS_FROM} WHERE r.target IN (${marks})`,
      ...names,
    );
  }

  /** Relations of a file (any kind), in source order. */
  relationsInFile(path: string): StoredRelation[] {
    return this.#relations(
      `SELECT ${RELATION_COLUMNS} ${RELATIONS_FROM} WHERE f.path = ?
        ORDER BY r.start_line, r.start_col`,
      path,
    );
  }

  /** Relations written inside a symbol of a file, in source order. */
  relationsFrom(symbolId: string, path: string): StoredRelation[] {
    return this.#relations(
      `SELECT ${RELATION_COLUMNS} ${RELATIONS_FROM} WHERE r.from_symbol = ? AND f.path = ?
        ORDER BY r.start_line, r.start_col`,
      symbolId,
      path,
    );
  }

  /** The import relations of a file (its bindings). */
  importsOfFile(path: string): StoredRelation[] {
    return this.#relations(
      `SELECT ${RELATION_COLUMNS} ${RELATIONS_FROM} WHERE f.path = ? AND r.kind = 'imports'`,
      path,
    );
  }

  /** Import relations naming `name` with an alias (`import { name as alias }`). */
  aliasesOf(name: string): StoredRelation[] {
    return this.#relations(
      `SELECT ${RELATION_COLUMNS} ${RELATIONS_FROM}
        WHERE r.target = ? AND r.kind = 'imports' AND r.alias IS NOT NULL`,
      name,
    );
  }

  /** Every relation of the given kinds, by path and position (for the quality scripts). */
  relationsOfKinds(kinds: string[]): StoredRelation[] {
    return this.#relations(
      `SELECT ${RELATION_COLUMNS} ${RELATIONS_FROM} WHERE r.kind IN (SELECT value FROM json_each(?))
        ORDER BY f.path, r.start_line, r.start_col, r.target`,
      JSON.stringify(kinds),
    );
  }

  // ---- status -----------------------------------------------------------------------------

  /** Whole-target counts. */
  counts(): TargetCounts {
    const count = (sql: string) => Number(this.#get(sql)?.n ?? 0);
    const grouped = (sql: string) =>
      Object.fromEntries(this.#all(sql).map((row) => [row.k ?? "text", row.n as number]));
    return {
      files: count("SELECT count(*) AS n FROM source_files"),
      chunks: count("SELECT count(*) AS n FROM source_chunks"),
      symbols: count("SELECT count(*) AS n FROM code_symbols"),
      relations: count("SELECT count(*) AS n FROM code_relations"),
      bytes: count("SELECT coalesce(sum(size), 0) AS n FROM source_files"),
      languages: grouped(
        "SELECT language AS k, count(*) AS n FROM source_files GROUP BY language",
      ),
      capabilities: grouped(
        "SELECT capability AS k, count(*) AS n FROM source_files GROUP BY capability",
      ),
    };
  }

  /** Per file id, the rows of one table it owns. */
  perFileCounts(table: PerFileTable): Map<number, number> {
    return new Map(
      this.#all(
        `SELECT file_id AS id, count(*) AS n FROM ${PER_FILE_TABLES[table]} GROUP BY file_id`,
      )
        .map((row) => [Number(row.id), Number(row.n)]),
    );
  }

  /** How many files have an index error, and how many per stage. */
  errorCounts(): { count: number; byStage: Record<string, number> } {
    return {
      count: Number(this.#get("SELECT count(*) AS n FROM index_errors")?.n ?? 0),
      byStage: Object.fromEntries(
        this.#all("SELECT stage AS k, count(*) AS n FROM index_errors GROUP BY stage")
          .map((row) => [row.k ?? "text", row.n as number]),
      ),
    };
  }

  /** Index errors by path; at most `limit` when given. */
  indexErrors(limit?: number): IndexErrorEntry[] {
    const rows = limit === undefined
      ? this.#all("SELECT path, stage, message FROM index_errors ORDER BY path")
      : this.#all("SELECT path, stage, message FROM index_errors ORDER BY path LIMIT ?", limit);
    return rows.map((row) => ({
      path: row.path as string,
      stage: row.stage as string,
      message: row.message as string,
    }));
  }

  // ---- plumbing ---------------------------------------------------------------------------

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      // A list of names binds one mark per name: bound the statements kept.
      if (this.#statements.size >= MAX_STATEMENTS) this.#statements.clear();
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #all(sql: string, ...args: (string | number)[]): Row[] {
    return this.#statement(sql).all(...args) as Row[];
  }

  #get(sql: string, ...args: (string | number)[]): Row | undefined {
    return this.#statement(sql).get(...args) as Row | undefined;
  }

  #symbols(sql: string, ...args: (string | number)[]): StoredSymbol[] {
    return this.#all(sql, ...args).map((row) => ({
      path: row.path as string,
      language: row.language as string | null,
      id: row.id as string,
      name: row.name as string,
      qualified: row.qualified_name as string,
      kind: row.kind as string,
      startLine: Number(row.start_line),
      startCol: Number(row.start_col),
      endLine: Number(row.end_line),
      endCol: Number(row.end_col),
      signature: row.signature as string | null,
      parentId: row.parent_id as string | null,
      exported: Number(row.exported) === 1,
      doc: row.doc as string | null,
    }));
  }

  #relations(sql: string, ...args: (string | number)[]): StoredRelation[] {
    return this.#all(sql, ...args).map((row) => ({
      path: row.path as string,
      language: row.language as string | null,
      kind: row.kind as string,
      fromSymbol: row.from_symbol as string | null,
      target: row.target as string,
      receiver: row.receiver as string | null,
      module: row.module as string | null,
      alias: row.alias as string | null,
      startLine: Number(row.start_line),
      startCol: Number(row.start_col),
      endLine: Number(row.end_line),
      endCol: Number(row.end_col),
    }));
  }
}

/** The sum of the SQLite varints in a blob (an FTS5 document size: one varint per column). */
function sumVarints(blob: Uint8Array): number {
  let total = 0;
  let i = 0;
  while (i < blob.length) {
    let value = 0;
    for (let n = 0; i < blob.length; n++) {
      const byte = blob[i++];
      if (n === 8) {
        value = value * 256 + byte;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) break;
    }
    total += value;
  }
  return total;
}
