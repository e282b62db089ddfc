/**
 * The one reader of a repository target: every read query of the product, as
 * typed values, on a read-only connection to the last committed generation.
 *
 * It also holds the caches derived from one generation (the file table, the
 * path set, and whatever a higher layer memoizes, such as the in-memory vector
 * index): they are dropped together when the generation the reader sees moves.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import {
  type StatementUnit,
  type UnitTable,
  unpackLines,
  unpackText,
  unpackUnits,
  unpackUnitTable,
} from "./packing.ts";
import { sliceLines, SNIPPET_LINES } from "../engine/lines.ts";
import {
  unpackRelations,
  unpackRelationsFrom,
  unpackRelationsOfKind,
  unpackRelationsTargeting,
} from "./relation_pack.ts";
import { stableOrder } from "../engine/order.ts";
import type { RelationRow } from "./records.ts";
import { readVarints } from "./fts_totals.ts";
import { SEPARATED_NAME } from "./schema.ts";

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

/**
 * The chunks that hold a full-text term, best first, in columns: row `i` is
 * chunk `chunkIds[i]` of file `fileIds[i]` with bm25 rank `ranks[i]`
 * (negative: lower is better).
 */
export interface TermMatches {
  length: number;
  chunkIds: Int32Array;
  fileIds: Int32Array;
  ranks: Float64Array;
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

/** A stored vector of a chunk (`engine/vector.ts` `quantizedBytes`). */
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

/** Every file of a target as columns, by path (`TargetReader.fileListing`). */
export interface FileListing {
  ids: number[];
  paths: string[];
  hashes: string[];
  languages: (string | null)[];
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
const FILE_IDS = new MemoKey<Map<string, number>>("store:file-ids");
const CHUNK_TABLE = new MemoKey<ChunkTable>("store:chunks");
const TERM_DOCUMENTS = new MemoKey<Map<string, number>>("store:term-documents");

/** Every chunk of a generation in columns, with its row by id and its rows by file. */
interface ChunkTable {
  rows: ChunkRowIndex;
  ids: Int32Array;
  fileIds: Int32Array;
  startLines: Int32Array;
  endLines: Int32Array;
  /** Where each chunk starts in its file's committed text (UTF-8 bytes), on its start line. */
  startBytes: Int32Array;
  /** Each chunk's content hash (the first 52 bits of its symbol path and text's SHA-256). */
  hashes: Float64Array;
  kinds: string[];
  symbolPaths: (string | null)[];
  byFile: Map<number, number[]>;
}

/**
 * Every chunk of one generation in columns, in content order (path, then start byte): row `at`
 * is chunk `ids[at]`, and `rows` gives a chunk id's row. Read only; kept by the reader.
 */
export type ChunkColumns = Readonly<Omit<ChunkTable, "byFile">>;

/** Characters of decoded text a reader keeps (the texts read last). */
const TEXT_CACHE_CHARS = 1_000_000;
/** Unpacked relation rows, and symbols, a reader keeps (of the files read last). */
const ROW_CACHE = 20_000;
/** Ranked full-text rows a reader keeps (of the terms matched last; 16 bytes each). */
const TERM_ROW_CACHE = 250_000;
/** Stored vectors read at once when a vector index reads every one (~2 MB of rows). */
const VECTOR_BATCH = 4_096;
/** Document frequencies of full-text terms a reader keeps (of the terms asked last). */
const TERM_DOCUMENTS_CACHE = 20_000;

/**
 * A map that keeps the entries used last up to a total weight (an entry over a
 * quarter of it is not kept).
 */
class Lru<K, V> {
  readonly #entries = new Map<K, V>();
  #weight = 0;

  constructor(readonly capacity: number, readonly weigh: (value: V) => number) {}

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    const weight = this.weigh(value);
    if (weight > this.capacity / 4 || this.#entries.has(key)) return;
    this.#entries.set(key, value);
    this.#weight += weight;
    for (const [oldest, kept] of this.#entries) {
      if (this.#weight <= this.capacity) break;
      this.#entries.delete(oldest);
      this.#weight -= this.weigh(kept);
    }
  }

  clear(): void {
    this.#entries.clear();
    this.#weight = 0;
  }
}
const SEPARATED_NAMES = new MemoKey<string[]>("store:separated-names");

const SYMBOL_COLUMNS = `s.id, s.name, s.qualified_name, s.kind, s.start_line, s.start_col,
  s.end_line, s.end_col, s.signature, s.parent_id, s.exported, s.doc, f.path, f.language`;
const SYMBOLS_FROM = "FROM code_symbols s JOIN source_files f ON f.id = s.file_id";
const MATCH_COLUMNS = `s.id, s.name, s.qualified_name, s.kind, s.start_line, s.end_line,
  s.signature, s.doc, s.exported, f.path, f.language`;
const PER_FILE_COUNT_KEYS: Record<PerFileTable, MemoKey<ReadonlyMap<number, number>>> = {
  chunks: new MemoKey("store:per-file:chunks"),
  symbols: new MemoKey("store:per-file:symbols"),
  relations: new MemoKey("store:per-file:relations"),
};
const PER_FILE_COUNTS: Record<PerFileTable, string> = {
  chunks: "SELECT file_id AS id, count(*) AS n FROM source_chunks GROUP BY file_id",
  symbols: "SELECT file_id AS id, count(*) AS n FROM code_symbols GROUP BY file_id",
  relations: "SELECT id, relation_count AS n FROM source_files WHERE relation_count > 0",
};

/** Which packed relation rows a read wants, decided on the row's string fields. */
type RelationFilter = (row: { kind: string; target: string; fromSymbol: string | null }) => boolean;

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
  readonly #metaValues = new Map<string, string | null>();
  /**
   * The last chunk table made, its target's build (`created_at`) and the highest chunk id it
   * read: the next generation's table keeps its rows of files still indexed (`carriedTable`).
   */
  #lastChunks: { build: string; maxId: number; table: ChunkTable } | null = null;
  #dataVersion = -1;
  /** Whether a snapshot taken by `hold` is open on this connection. */
  #held = false;
  /** Whether `hold` was asked in this synchronous run (a snapshot or not, it ends with it). */
  #inRun = false;
  /** Of this generation, the last decoded texts, unpacked relations and symbols read. */
  readonly #texts = new Lru<string, string>(TEXT_CACHE_CHARS, (text) => text.length);
  readonly #relations = new Lru<number, RelationRow[]>(ROW_CACHE, (rows) => rows.length);
  readonly #imports = new Lru<number, RelationRow[]>(ROW_CACHE, (rows) => rows.length + 1);
  readonly #fileSymbols = new Lru<string, StoredSymbol[]>(ROW_CACHE, (rows) => rows.length);
  /** 16 bytes a row: as many rows as a few megabytes hold. */
  readonly #termMatches = new Lru<string, TermMatches>(TERM_ROW_CACHE, (rows) => rows.length + 1);

  /** Names the target across threads of a process (its database path), for shared caches. */
  readonly target: string;

  /** Wraps an open read-only connection (see `openTargetReader`). */
  constructor(db: DatabaseSync, target = "") {
    this.#db = db;
    this.target = target;
  }

  close(): void {
    this.#held = false;
    this.#statements.clear();
    this.#memo.clear();
    this.#db.close();
  }

  // ---- snapshot ---------------------------------------------------------------------------

  /**
   * Holds one snapshot of the target until the current synchronous run ends (a read
   * transaction, ended at the next microtask checkpoint): every read until then sees the same
   * commit, and a generation check (`meta`, `memo`, every cached read) costs no statement. A
   * resolver walk reads the target thousands of times in one run; without a snapshot each read
   * stands alone, so a commit landing mid-walk gave it rows of two generations, and each check
   * asked SQLite's `data_version` (8% of a hub's impact walk on sympy). Held only in WAL mode,
   * where a commit elsewhere waits for no reader. A target is in rollback mode from its cold
   * build until a writer next opens it, and there a reader's lock would keep a writer waiting
   * (in this thread, until its timeout): there nothing is held, and each read stands alone.
   */
  hold(): void {
    // Once per run, held or not: in rollback mode the run's further calls cost nothing either.
    if (this.#inRun) return;
    this.#inRun = true;
    queueMicrotask(() => {
      this.#inRun = false;
      this.#release();
    });
    try {
      this.#db.exec("BEGIN");
    } catch {
      return; // a transaction of the caller's own: its reads are one snapshot already
    }
    this.#held = true;
    // The first read starts the snapshot (the meta values kept must be of it) and tells the
    // journal mode.
    this.#checkVersion();
    if (this.#get("PRAGMA journal_mode")?.journal_mode !== "wal") this.#release();
  }

  /**
   * Runs reads that must see one commit: in the snapshot `hold` took, else in a read transaction
   * of their own (ended before this returns, so no writer waits on it past these reads).
   */
  #snapshot<T>(read: () => T): T {
    if (this.#held) return read();
    try {
      this.#db.exec("BEGIN");
    } catch {
      return read(); // a transaction of the caller's own: one snapshot already
    }
    try {
      return read();
    } finally {
      try {
        this.#db.exec("COMMIT");
      } catch { /* closed */ }
    }
  }

  #release(): void {
    if (!this.#held) return;
    this.#held = false;
    try {
      this.#db.exec("COMMIT");
    } catch { /* closed */ }
  }

  // ---- meta -------------------------------------------------------------------------------

  /** Forgets the meta values kept when another connection committed (`data_version` moved). */
  #checkVersion(): void {
    const version = Number(this.#get("PRAGMA data_version")?.data_version ?? 0);
    if (version !== this.#dataVersion) {
      this.#metaValues.clear();
      this.#dataVersion = version;
    }
  }

  /**
   * A meta value, or null. Values are kept until another connection commits
   * (SQLite's `data_version` says when; not asked while a snapshot is held), so a generation
   * check costs no table read.
   */
  meta(key: string): string | null {
    if (!this.#held) this.#checkVersion();
    if (!this.#metaValues.has(key)) {
      const row = this.#get("SELECT value FROM meta WHERE key = ?", key);
      this.#metaValues.set(key, row ? row.value as string : null);
    }
    return this.#metaValues.get(key)!;
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
      this.#texts.clear();
      this.#relations.clear();
      this.#imports.clear();
      this.#fileSymbols.clear();
      this.#termMatches.clear();
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

  /** The id of an indexed path, or undefined (per generation). */
  fileId(path: string): number | undefined {
    return this.memo(FILE_IDS, () => fileIds(this.fileTable().files)).get(path);
  }

  /**
   * The committed text of a file, or null when it is not indexed. The last
   * texts read stay decoded (up to `TEXT_CACHE_CHARS`) until the generation moves.
   */
  fileText(path: string): string | null {
    const id = this.fileId(path);
    if (id === undefined) return null;
    const cached = this.#texts.get(path);
    if (cached !== undefined) return cached;
    const row = this.#get("SELECT text FROM file_text WHERE file_id = ?", id);
    if (!row) return null;
    const text = unpackText(row.text as Uint8Array, this.fileTable().files.get(id)?.size);
    this.#texts.set(path, text);
    return text;
  }

  /**
   * For each request, lines `start..end` (1-based, inclusive, at most
   * `maxLines`) of a file's committed text, as `sliceLines` cuts them from
   * `fileText`; null when the file is not indexed. A text not kept decoded is
   * inflated only as far as those lines, and only they are decoded (search's
   * snippets: most hits are one chunk of a long file). `startByte`, when given,
   * is a byte of line `start` in the committed text (a chunk's `startByte`):
   * the lines are found from there, not by counting the lines before them.
   */
  fileLines(
    requests: readonly { path: string; start: number; end: number; startByte?: number }[],
    maxLines = SNIPPET_LINES,
  ): (string | null)[] {
    const files = this.fileTable().files;
    const ids = this.memo(FILE_IDS, () => fileIds(files));
    return requests.map(({ path, start, end, startByte }) =>
      this.#fileLinesOf(ids.get(path), files, path, start, end, maxLines, startByte)
    );
  }

  #fileLinesOf(
    id: number | undefined,
    files: Map<number, FileEntry>,
    path: string,
    start: number,
    end: number,
    maxLines: number,
    startByte?: number,
  ): string | null {
    if (id === undefined) return null;
    const cached = this.#texts.get(path);
    if (cached !== undefined) return sliceLines(cached, start, end, maxLines);
    const row = this.#get("SELECT text FROM file_text WHERE file_id = ?", id);
    if (!row) return null;
    const first = Math.max(1, start);
    const last = Math.min(end, start + maxLines - 1);
    const file = files.get(id);
    const lineCount = file?.lineCount ?? 0;
    const size = file?.size ?? 0;
    // The share of the text the lines end in: from their first byte and the average line when
    // that byte is known, else from the line numbers.
    const at = startByte !== undefined && start >= 1 && size > 0 ? startByte : -1;
    const share = at >= 0 && lineCount > 0
      ? (at + (last - first + 1) * size / lineCount) / size
      : lineCount > 0
      ? last / lineCount
      : 1;
    return unpackLines(row.text as Uint8Array, first, last, share, size, at);
  }

  /**
   * The statement units of a file's tree as the indexer found them
   * (`indexer/statement_units.ts`), or null (no clean tree, or not indexed).
   */
  statementUnits(path: string): StatementUnit[] | null {
    const id = this.fileId(path);
    if (id === undefined) return null;
    const row = this.#get("SELECT regions FROM file_text WHERE file_id = ?", id);
    return row?.regions ? unpackUnits(row.regions as Uint8Array) : null;
  }

  /**
   * A file's committed text (as `fileText`) and its packed statement units
   * (`unpackUnitTable` reads them), in one read: the units follow the text in
   * its row, so reading them alone walks the text's overflow pages again.
   */
  fileTextAndUnits(path: string): { text: string; units: Uint8Array | null } | null {
    const id = this.fileId(path);
    if (id === undefined) return null;
    // A text kept decoded is not read again: only the units are.
    const cached = this.#texts.get(path);
    const row = this.#get(
      `SELECT ${cached === undefined ? "text, " : ""}regions FROM file_text WHERE file_id = ?`,
      id,
    );
    if (!row) return null;
    const units = (row.regions as Uint8Array | null) ?? null;
    if (cached !== undefined) return { text: cached, units };
    const text = unpackText(row.text as Uint8Array, this.fileTable().files.get(id)?.size);
    this.#texts.set(path, text);
    return { text, units };
  }

  /** `statementUnits` as columns (what grep's parse plans read). */
  statementUnitTable(path: string): UnitTable | null {
    const id = this.fileId(path);
    if (id === undefined) return null;
    const row = this.#get("SELECT regions FROM file_text WHERE file_id = ?", id);
    return row?.regions ? unpackUnitTable(row.regions as Uint8Array) : null;
  }

  // ---- chunks and full text ---------------------------------------------------------------

  /** Every chunk's place, in content order, held in memory for the generation. */
  #chunkTable(): ChunkTable {
    return this.memo(CHUNK_TABLE, () => {
      // In content order (path, then place in the file, then id), not by chunk id: rows break
      // ties in every ranking, and ids follow the order files were written in, which differs
      // between two builds of the same text. Read by id as arrays and put in that order here:
      // SQLite's join and sort of every chunk by its file's path took most of this read
      // (sympy, 25k chunks: 108-145 ms for every new generation of each query Worker).
      // The files, the build and the rows of one commit: rows kept from this table for the
      // next one must be the ones stored with the files they are kept for.
      const { rank, build, earlier, rows } = this.#snapshot(() => {
        const rank = new Map<number, number>();
        for (const [id] of this.#arrays("SELECT id FROM source_files ORDER BY path")) {
          rank.set(Number(id), rank.size);
        }
        const build = this.meta("created_at") ?? "";
        const earlier = this.#lastChunks?.build === build ? this.#lastChunks : null;
        // After a refresh of the same build, only the rows written since are read (`carried`).
        const rows = this.#arrays(
          `SELECT id, file_id, start_line, end_line, start_byte, kind, symbol_path, content_hash
             FROM source_chunks WHERE id > ? ORDER BY id`,
          earlier?.maxId ?? -1,
        );
        return { rank, build, earlier, rows };
      });
      const table = earlier
        ? carriedTable(earlier.table, rows, rank)
        : chunkTable(rows, contentOrder(rows, rank));
      // Rows come in id order: the last one read has the highest id.
      const maxId = rows.length > 0 ? Number(rows[rows.length - 1][0]) : earlier?.maxId ?? -1;
      this.#lastChunks = { build, maxId, table };
      return table;
    });
  }

  /** The innermost chunk of a file that covers a line (the first of equals), or null. */
  chunkAt(fileId: number, line: number): number | null {
    const table = this.#chunkTable();
    let best = -1;
    for (const at of table.byFile.get(fileId) ?? []) {
      if (table.startLines[at] > line || table.endLines[at] < line) continue;
      const span = table.endLines[at] - table.startLines[at];
      if (best < 0 || span < table.endLines[best] - table.startLines[best]) best = at;
    }
    return best < 0 ? null : table.ids[best];
  }

  /**
   * Every chunk's place in columns (of the current generation, kept for it): for
   * callers that address chunks by row and build only the entries they keep.
   */
  chunkColumns(): ChunkColumns {
    return this.#chunkTable();
  }

  /** How many chunks hold a full-text term (0 when none); the last terms asked stay known. */
  termDocuments(term: string): number {
    const known = this.memo(TERM_DOCUMENTS, () => new Map<string, number>());
    let documents = known.get(term);
    if (documents === undefined) {
      documents = Number(
        this.#get("SELECT doc FROM source_chunks_vocab WHERE term = ?", term)?.doc ?? 0,
      );
      if (known.size >= TERM_DOCUMENTS_CACHE) known.clear();
      known.set(term, documents);
    }
    return documents;
  }

  /**
   * The best `limit` chunks for each FTS5 expression, by bm25 (code terms 1,
   * path terms 2), all of one generation.
   */
  termMatches(expressions: readonly string[], limit: number): TermMatches[] {
    // The chunk table first: it moves every cache of this reader to the current generation.
    const table = this.#chunkTable();
    return expressions.map((expression) => this.#termMatchesOf(table, expression, limit));
  }

  #termMatchesOf(table: ChunkTable, expression: string, limit: number): TermMatches {
    // A common term costs most (bm25 of every chunk holding it) and comes back in many
    // queries: the last ones stay for the generation.
    const key = `${limit}\0${expression}`;
    const cached = this.#termMatches.get(key);
    if (cached) return cached;
    // Sorted here, not by `ORDER BY rank LIMIT` (a third of the query's time): by rank, equal
    // ranks in the chunk table's (content) order — FTS5 gives rows by chunk id, which two
    // builds of the same text number differently. Rows as arrays (no object per row):
    // [rowid, rank].
    const rows = this.#arrays(
      `SELECT rowid, bm25(source_chunks_fts, 1.0, 2.0) FROM source_chunks_fts
        WHERE source_chunks_fts MATCH ?`,
      expression,
    );
    const places = new Float64Array(rows.length);
    const found = new Float64Array(rows.length);
    let count = 0;
    for (const row of rows) {
      const at = table.rows.get(Number(row[0]));
      if (at === undefined) continue;
      places[count] = at;
      found[count++] = row[1] as number;
    }
    const byPlace = stableOrder(places.subarray(0, count));
    const ranks = new Float64Array(count);
    for (let i = 0; i < count; i++) ranks[i] = found[byPlace[i]];
    const order = stableOrder(ranks);
    const kept = Math.min(count, Math.max(0, limit));
    const matches: TermMatches = {
      length: kept,
      chunkIds: new Int32Array(kept),
      fileIds: new Int32Array(kept),
      ranks: new Float64Array(kept),
    };
    for (let i = 0; i < kept; i++) {
      const at = places[byPlace[order[i]]];
      matches.chunkIds[i] = table.ids[at];
      matches.fileIds[i] = table.fileIds[at];
      matches.ranks[i] = ranks[order[i]];
    }
    this.#termMatches.set(key, matches);
    return matches;
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
    const wanted = new Set(names);
    // The name index folds case: look up through it, then keep the exact ones.
    return this.#all(
      `SELECT s.name AS name, s.file_id AS file_id, s.start_line AS line
         FROM code_symbols s WHERE s.name COLLATE NOCASE IN (SELECT value FROM json_each(?))
        ORDER BY s.name COLLATE NOCASE, s.id`,
      JSON.stringify(names),
    ).filter((row) => wanted.has(row.name as string)).map((row) => ({
      name: row.name as string,
      fileId: Number(row.file_id),
      line: Number(row.line),
    }));
  }

  // ---- vectors ----------------------------------------------------------------------------

  /**
   * Stored vectors of a model, each passed to `visit` with its content hash as it is read: of
   * `hashes`, or every one the model has (null). A row's bytes are its own (`visit` may keep
   * them) but nothing holds them after `visit` returns: a caller that copies them somewhere
   * holds one copy of the model's vectors, not a row object per vector beside it.
   */
  eachChunkVector(
    model: string,
    hashes: readonly number[] | null,
    visit: (hash: number, vector: Uint8Array) => void,
    batch = VECTOR_BATCH,
  ): void {
    if (hashes !== null) {
      if (hashes.length === 0) return;
      const rows = this.#arrays(
        `SELECT content_hash, vector FROM chunk_vectors
          WHERE model = ? AND content_hash IN (SELECT value FROM json_each(?))`,
        model,
        JSON.stringify(hashes),
      );
      for (const [hash, vector] of rows) visit(Number(hash), vector as Uint8Array);
      return;
    }
    // Every vector, in batches by row id, all of one commit (`iterate` took ~60% longer).
    const size = Math.max(1, batch);
    this.#snapshot(() => {
      for (let after = -1;;) {
        const rows = this.#arrays(
          `SELECT id, content_hash, vector FROM chunk_vectors
            WHERE model = ? AND id > ? ORDER BY id LIMIT ?`,
          model,
          after,
          size,
        );
        for (const [, hash, vector] of rows) visit(Number(hash), vector as Uint8Array);
        if (rows.length < size) return;
        after = Number(rows[rows.length - 1][0]);
      }
    });
  }

  // ---- grep -------------------------------------------------------------------------------

  /** Every file, by path (grep's candidates when a pattern has no usable term). */
  allFiles(): CandidateFile[] {
    return this.#all("SELECT id, path, content_hash FROM source_files ORDER BY path")
      .map(candidate);
  }

  /**
   * Every file's id, path, content hash and language as columns, by path, in one read (no file
   * table is built: the dependency index reads this once per generation on a connection of its
   * own).
   */
  fileListing(): FileListing {
    const listing: FileListing = { ids: [], paths: [], hashes: [], languages: [] };
    for (
      const [id, path, hash, language] of this.#arrays(
        "SELECT id, path, content_hash, language FROM source_files ORDER BY path",
      )
    ) {
      listing.ids.push(Number(id));
      listing.paths.push(path as string);
      listing.hashes.push(hash as string);
      listing.languages.push(language as string | null);
    }
    return listing;
  }

  /** The distinct modules a file's import rows name, in source order, by file id. */
  importModules(id: number): string[] {
    const row = this.#get("SELECT modules FROM file_imports WHERE file_id = ?", id);
    return row ? JSON.parse(row.modules as string) as string[] : [];
  }

  /** Ids of the files with a chunk whose code terms hold `term` (one FTS token). */
  filesWithTerm(term: string): Set<number> {
    return new Set(
      this.#all(
        `SELECT DISTINCT c.file_id AS id FROM source_chunks_fts f
           JOIN source_chunks c ON c.id = f.rowid WHERE source_chunks_fts MATCH ?`,
        `terms : "${term.replaceAll('"', '""')}"`,
      ).map((row) => Number(row.id)),
    );
  }

  /** Files whose chunk terms may miss a term of their text: no term prefilter applies. */
  filesWithoutCompleteTerms(): Set<number> {
    return new Set(
      this.#all("SELECT id FROM source_files WHERE terms_complete = 0").map((row) =>
        Number(row.id)
      ),
    );
  }

  /** The given files, by path. */
  candidateFiles(ids: Iterable<number>): CandidateFile[] {
    return this.#all(
      `SELECT id, path, content_hash FROM source_files
        WHERE id IN (SELECT value FROM json_each(?)) ORDER BY path`,
      JSON.stringify([...ids]),
    ).map(candidate);
  }

  // ---- symbols ----------------------------------------------------------------------------

  /**
   * Workspace symbol search, streamed best first: exact name or qualified name,
   * then name ignoring case, then qualified-name suffix, then name prefix; within
   * a tier exported first, then shorter qualified names.
   */
  symbolSearch(query: string, kind?: string): Iterable<SymbolMatch> {
    // Tiers 0-2 hold only names that end `query` after a separator (a qualified name ends
    // with its name), or names that hold a separator themselves: both are index lookups.
    // Tier 3 (a name prefix) streams from the name index in the answer's order.
    const folded = asciiLower(query);
    const kindClause = kind ? " AND s.kind = ?" : "";
    const kindArgs = kind ? [kind] : [];
    const seen = new Set<string>();
    const first: SymbolMatch[] = [];
    const consider = (row: Row) => {
      const id = row.id as string;
      if (seen.has(id)) return;
      const match = symbolMatch(row, query, folded);
      if (match.tier > 2) return;
      seen.add(id);
      first.push(match);
    };
    for (const name of boundarySuffixes(query)) {
      for (
        const row of this.#all(
          `SELECT ${MATCH_COLUMNS} ${SYMBOLS_FROM} WHERE s.name = ? COLLATE NOCASE${kindClause}
            ORDER BY s.id`,
          name,
          ...kindArgs,
        )
      ) consider(row);
    }
    for (const id of this.#separatedNames()) {
      for (
        const row of this.#all(
          `SELECT ${MATCH_COLUMNS} ${SYMBOLS_FROM} WHERE s.id = ?${kindClause}`,
          id,
          ...kindArgs,
        )
      ) consider(row);
    }
    first.sort((a, b) =>
      a.tier - b.tier || Number(b.exported) - Number(a.exported) ||
      a.qualified.length - b.qualified.length
    );
    const prefix = this.#statement(
      `SELECT ${MATCH_COLUMNS} ${SYMBOLS_FROM}
        WHERE s.name LIKE ? ESCAPE '\\'${kindClause}
        ORDER BY s.exported DESC, length(s.qualified_name), s.name COLLATE NOCASE, s.id`,
    );
    const pattern = `${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return (function* () {
      yield* first;
      for (const row of prefix.iterate(pattern, ...kindArgs) as Iterable<Row>) {
        if (seen.has(row.id as string)) continue;
        yield symbolMatch(row, query, folded);
      }
    })();
  }

  /**
   * Ids of the definitions whose name holds a separator (`.`, `:` or a backslash), per
   * generation, read from the partial index that holds only them (`code_symbols_separated`).
   * Read from the table in id order (every row, by its id's index) this took 150-200 ms on sympy,
   * from the name index (every name) 11-14 ms, the first `symbols` of every generation; sympy has
   * none.
   */
  #separatedNames(): string[] {
    return this.memo(SEPARATED_NAMES, () =>
      this.#all(
        `SELECT id FROM code_symbols INDEXED BY code_symbols_separated
          WHERE ${SEPARATED_NAME} ORDER BY id`,
      ).map((row) => row.id as string));
  }

  /** Definitions named exactly `name`. */
  symbolsNamed(name: string): StoredSymbol[] {
    // The name index folds case: look up through it, then keep the exact ones.
    return this.#symbols(
      `SELECT ${SYMBOL_COLUMNS} ${SYMBOLS_FROM} WHERE s.name = ? COLLATE NOCASE ORDER BY s.id`,
      name,
    ).filter((symbol) => symbol.name === name);
  }

  /** Definitions whose name starts with `prefix`, at most `limit`. */
  symbolsWithPrefix(prefix: string, limit: number): StoredSymbol[] {
    const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
    return this.#symbols(
      `SELECT ${SYMBOL_COLUMNS} ${SYMBOLS_FROM} WHERE s.name LIKE ? ESCAPE '\\'
        ORDER BY s.name COLLATE NOCASE, s.id LIMIT ?`,
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
    const id = this.fileId(path);
    if (id === undefined) return [];
    let rows = this.#fileSymbols.get(path);
    if (!rows) {
      rows = this.#symbols(
        `SELECT ${SYMBOL_COLUMNS} ${SYMBOLS_FROM} WHERE s.file_id = ?
          ORDER BY s.start_line, s.start_col, s.id`,
        id,
      );
      this.#fileSymbols.set(path, rows);
    }
    return [...rows];
  }

  /**
   * The definitions of a file without their doc, in no set order and not kept (the resolver's
   * read: it orders and keeps rows itself and never shows a doc). The rows of one range of the
   * file index as arrays: no join (the file's path and language are the file table's), no sort.
   */
  definitionsOfFile(path: string): SymbolRow[] {
    const id = this.fileId(path);
    const file = id === undefined ? undefined : this.fileTable().files.get(id);
    if (id === undefined || !file) return [];
    return this.#arrays(
      `SELECT id, name, qualified_name, kind, start_line, start_col, end_line, end_col,
              signature, parent_id, exported FROM code_symbols WHERE file_id = ?`,
      id,
    ).map((row) => ({
      path: file.path,
      language: file.language,
      id: row[0] as string,
      name: row[1] as string,
      qualified: row[2] as string,
      kind: row[3] as string,
      startLine: Number(row[4]),
      startCol: Number(row[5]),
      endLine: Number(row[6]),
      endCol: Number(row[7]),
      signature: row[8] as string | null,
      parentId: row[9] as string | null,
      exported: Number(row[10]) === 1,
    }));
  }

  /** Every definition of the given kinds, by path and position (for the quality scripts). */
  symbolsOfKinds(kinds: string[]): StoredSymbol[] {
    return this.#symbols(
      `SELECT ${SYMBOL_COLUMNS} ${SYMBOLS_FROM} WHERE s.kind IN (SELECT value FROM json_each(?))
        ORDER BY f.path, s.start_line, s.start_col, s.name, s.id`,
      JSON.stringify(kinds),
    );
  }

  /** Every definition of the target, by path and position (repository maps and outlines). */
  allSymbols(): StoredSymbol[] {
    return this.#symbols(
      `SELECT ${SYMBOL_COLUMNS} ${SYMBOLS_FROM}
        ORDER BY f.path, s.start_line, s.start_col, s.id`,
    );
  }

  // ---- relations --------------------------------------------------------------------------

  /**
   * Every relation of the target counted per file, kind, target, module and
   * receiver-or-not (the reference graph of a repository map, without sites),
   * in that order (a missing module first).
   */
  relationCounts(): RelationCount[] {
    const ids = this.#all("SELECT id FROM source_files WHERE relation_count > 0 ORDER BY id")
      .map((row) => Number(row.id));
    const out: RelationCount[] = [];
    for (const fileId of ids) {
      const counts = new Map<string, RelationCount>();
      for (const row of this.#relations.get(fileId) ?? this.#unpackedRelations(fileId)) {
        const member = row.receiver !== null;
        const key = `${row.kind}\0${row.target}\0${row.module ?? "\u0001"}\0${member}`;
        const entry = counts.get(key);
        if (entry) entry.count++;
        else {
          counts.set(key, {
            fileId,
            kind: row.kind,
            target: row.target,
            module: row.module,
            member,
            count: 1,
          });
        }
      }
      out.push(
        ...[...counts.values()].sort((a, b) =>
          compare(a.kind, b.kind) || compare(a.target, b.target) ||
          (a.module === null ? (b.module === null ? 0 : -1) : b.module === null ? 1 : 0) ||
          compare(a.module ?? "", b.module ?? "") || Number(a.member) - Number(b.member)
        ),
      );
    }
    return out;
  }

  /** Relations whose written target is one of `names`, by target, kind, path and position. */
  relationsTargeting(names: string[]): StoredRelation[] {
    if (names.length === 0) return [];
    const wanted = new Set(names);
    const rows = this.#relationsOfFiles(
      this.#postings(names),
      (row) => wanted.has(row.target),
      wanted,
    );
    return rows.sort((a, b) =>
      compare(a.target, b.target) || compare(a.kind, b.kind) || compare(a.path, b.path) ||
      a.startLine - b.startLine || a.startCol - b.startCol
    );
  }

  /** Relations of a file (any kind), in source order. */
  relationsInFile(path: string): StoredRelation[] {
    return this.#relationsOfPath(path);
  }

  /**
   * Relations written inside a symbol of a file, in source order: from the file's rows when
   * they are kept, else only the symbol's rows are made (a class's own rows, of a file of
   * thousands, are what a walk asks for its bases).
   */
  relationsFrom(symbolId: string, path: string): StoredRelation[] {
    const id = this.fileId(path);
    const file = id === undefined ? undefined : this.fileTable().files.get(id);
    if (id === undefined || !file) return [];
    if (this.#relations.get(id)) {
      return this.#relationsOfFiles([id], (row) => row.fromSymbol === symbolId);
    }
    const row = this.#get("SELECT data FROM file_relations WHERE file_id = ?", id);
    if (!row) return [];
    return unpackRelationsFrom(row.data as Uint8Array, symbolId).map((relation) =>
      storedRelation(relation, file)
    );
  }

  /**
   * The import relations of a file (its bindings). Resolution asks this of
   * every file holding a reference, so only the import rows are made and kept.
   */
  importsOfFile(path: string): StoredRelation[] {
    const id = this.fileId(path);
    const file = id === undefined ? undefined : this.fileTable().files.get(id);
    if (id === undefined || !file) return [];
    let rows = this.#imports.get(id);
    if (!rows) {
      const whole = this.#relations.get(id);
      if (whole) rows = whole.filter((row) => row.kind === "imports");
      else {
        // Only the import rows' strings are decoded.
        const packed = this.#get("SELECT data FROM file_relations WHERE file_id = ?", id);
        rows = packed ? unpackRelationsOfKind(packed.data as Uint8Array, "imports") : [];
      }
      this.#imports.set(id, rows);
    }
    return rows.map((row) => storedRelation(row, file));
  }

  /** Import relations naming `name` with an alias (`import { name as alias }`). */
  aliasesOf(name: string): StoredRelation[] {
    return this.#relationsOfFiles(
      this.#postings([name]),
      (row) => row.target === name && row.kind === "imports",
      new Set([name]),
    ).filter((row) => row.alias !== null);
  }

  /**
   * Every relation of the given kinds (of every kind without `kinds`), by path
   * and position (for the quality scripts and tests).
   */
  relationsOfKinds(kinds?: readonly string[]): StoredRelation[] {
    const wanted = kinds ? new Set(kinds) : null;
    const ids = this.#all("SELECT id FROM source_files WHERE relation_count > 0")
      .map((row) => Number(row.id));
    return this.#relationsOfFiles(ids, wanted ? (row) => wanted.has(row.kind) : undefined).sort((
      a,
      b,
    ) =>
      compare(a.path, b.path) || a.startLine - b.startLine || a.startCol - b.startCol ||
      compare(a.target, b.target)
    );
  }

  /** Ids of the files that write a relation to any of `names`. */
  #postings(names: string[]): number[] {
    return this.#all(
      `SELECT DISTINCT file_id FROM relation_targets
        WHERE name IN (SELECT value FROM json_each(?))`,
      JSON.stringify(names),
    ).map((row) => Number(row.file_id));
  }

  #relationsOfPath(path: string, keep?: RelationFilter): StoredRelation[] {
    const id = this.fileId(path);
    return id === undefined ? [] : this.#relationsOfFiles([id], keep);
  }

  /**
   * The packed relations of files, unpacked (only the rows `keep` wants), with
   * their file. One file's rows are read whole and kept (a walk comes back to
   * the same file); across many files (every file naming a target) only the
   * wanted rows are made, and only files already kept are read from memory
   * (with `targets`, the rows `keep` may want all name one of them: the rest of a
   * file's strings are not decoded).
   */
  #relationsOfFiles(
    ids: Iterable<number>,
    keep?: RelationFilter,
    targets?: ReadonlySet<string>,
  ): StoredRelation[] {
    const files = this.fileTable().files;
    const list = [...ids];
    const out: StoredRelation[] = [];
    for (const id of list) {
      const file = files.get(id);
      if (!file) continue;
      const cached = list.length === 1 ? this.#fileRelations(id) : this.#relations.get(id);
      const rows = cached ?? this.#unpackedRelations(id, keep, targets);
      for (const relation of rows) {
        if (
          cached && keep &&
          !keep({ kind: relation.kind, target: relation.target, fromSymbol: relation.from_symbol })
        ) continue;
        out.push(storedRelation(relation, file));
      }
    }
    return out;
  }

  /** The rows of a file's packed relations that `keep` wants, not kept. */
  #unpackedRelations(
    fileId: number,
    keep?: RelationFilter,
    targets?: ReadonlySet<string>,
  ): RelationRow[] {
    const row = this.#get("SELECT data FROM file_relations WHERE file_id = ?", fileId);
    if (!row) return [];
    return targets
      ? unpackRelationsTargeting(row.data as Uint8Array, targets, keep)
      : unpackRelations(row.data as Uint8Array, keep);
  }

  /**
   * Every relation of a file, unpacked; the files read last stay unpacked (up to
   * `ROW_CACHE` rows) until the generation moves (callers look the
   * file up in `fileTable()` first, which notices a new generation), since a
   * walk over the graph comes back to the same files.
   */
  #fileRelations(fileId: number): RelationRow[] {
    const cached = this.#relations.get(fileId);
    if (cached) return cached;
    const rows = this.#unpackedRelations(fileId);
    this.#relations.set(fileId, rows);
    return rows;
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
      relations: count("SELECT coalesce(sum(relation_count), 0) AS n FROM source_files"),
      bytes: count("SELECT coalesce(sum(size), 0) AS n FROM source_files"),
      languages: grouped(
        "SELECT language AS k, count(*) AS n FROM source_files GROUP BY language",
      ),
      capabilities: grouped(
        "SELECT capability AS k, count(*) AS n FROM source_files GROUP BY capability",
      ),
    };
  }

  /**
   * Per file id, the rows of one table it owns (per generation: a count over a whole table,
   * which outline asks on every call).
   */
  perFileCounts(table: PerFileTable): ReadonlyMap<number, number> {
    return this.memo(
      PER_FILE_COUNT_KEYS[table],
      () =>
        new Map(
          this.#all(PER_FILE_COUNTS[table]).map((row) => [Number(row.id), Number(row.n)]),
        ),
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

  /** Rows as arrays of column values, in the select's order (no object per row). */
  #arrays(sql: string, ...args: (string | number)[]): unknown[][] {
    const key = `arrays\0${sql}`;
    let statement = this.#statements.get(key);
    if (!statement) {
      if (this.#statements.size >= MAX_STATEMENTS) this.#statements.clear();
      statement = this.#db.prepare(sql);
      // In node:sqlite, not yet in Deno's types.
      (statement as StatementSync & { setReturnArrays(on: boolean): void }).setReturnArrays(true);
      this.#statements.set(key, statement);
    }
    return statement.all(...args) as unknown as unknown[][];
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
}

/** A definition as the resolver reads it: a stored symbol without its doc. */
export type SymbolRow = Omit<StoredSymbol, "doc">;

/**
 * A workspace symbol match and its tier: 0 exact name or qualified name, 1 name
 * ignoring (ASCII) case, 2 qualified name ending with `.query` or `::query`
 * ignoring case, 3 anything else (a name prefix).
 */
function symbolMatch(row: Row, query: string, folded: string): SymbolMatch {
  const name = row.name as string;
  const qualified = row.qualified_name as string;
  const foldedQualified = asciiLower(qualified);
  const tier = name === query || qualified === query
    ? 0
    : asciiLower(name) === folded
    ? 1
    : foldedQualified.endsWith(`.${folded}`) || foldedQualified.endsWith(`::${folded}`)
    ? 2
    : 3;
  return {
    id: row.id as string,
    name,
    qualified,
    kind: row.kind as string,
    startLine: Number(row.start_line),
    endLine: Number(row.end_line),
    signature: row.signature as string | null,
    doc: row.doc as string | null,
    exported: Number(row.exported) === 1,
    path: row.path as string,
    language: row.language as string | null,
    tier,
  };
}

/**
 * `query` and every tail of it that starts after a non-word character: the
 * names a definition can have when its qualified name is `query` or ends with
 * `.query` / `::query` (qualified names join names with `.`, `::` or a backslash).
 */
function boundarySuffixes(query: string): string[] {
  const tails = [query];
  for (let i = 1; i < query.length; i++) {
    if (!/[\p{L}\p{N}_$]/u.test(query[i - 1])) tails.push(query.slice(i));
  }
  return [...new Set(tails)].slice(0, MAX_TAILS);
}

/** Tails of a symbol query looked up at most (a query of punctuation has many). */
const MAX_TAILS = 32;

/** Lower case for ASCII letters only, as SQLite's NOCASE and LIKE fold case. */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

function candidate(row: Row): CandidateFile {
  return { id: Number(row.id), path: row.path as string, contentHash: row.content_hash as string };
}

function storedRelation(row: RelationRow, file: FileEntry): StoredRelation {
  return {
    path: file.path,
    language: file.language,
    kind: row.kind,
    fromSymbol: row.from_symbol,
    target: row.target,
    receiver: row.receiver,
    module: row.module,
    alias: row.alias,
    startLine: row.start_line,
    startCol: row.start_col,
    endLine: row.end_line,
    endCol: row.end_col,
  };
}

/** Code-unit order, as SQLite's default collation orders text. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The sum of the SQLite varints in a blob (an FTS5 document size: one varint per column). */
function sumVarints(blob: Uint8Array): number {
  return readVarints(blob).reduce((total, value) => total + value, 0);
}

/**
 * The chunk rows (`[id, file_id, _, _, start_byte, …]`, read by id) of files `rank` orders, in
 * content order: by the file's rank, then start byte, then id (the order read in). A row whose
 * file is not ranked is left out, as a join with the files would leave it.
 */
export function contentOrder(rows: unknown[][], rank: Map<number, number>): Int32Array {
  const kept: number[] = [];
  let maxByte = 0;
  for (let at = 0; at < rows.length; at++) {
    if (!rank.has(Number(rows[at][1]))) continue;
    kept.push(at);
    maxByte = Math.max(maxByte, Number(rows[at][4]));
  }
  const fileRank = (at: number) => rank.get(Number(rows[at][1]))!;
  const byte = (at: number) => Number(rows[at][4]);
  if (rank.size <= 2 ** 20 && maxByte < 2 ** 32) {
    // Rank and start byte in one exact key; `stableOrder` keeps equal keys in id order.
    const keys = new Float64Array(kept.length);
    for (let i = 0; i < kept.length; i++) keys[i] = fileRank(kept[i]) * 2 ** 32 + byte(kept[i]);
    return Int32Array.from(stableOrder(keys), (i) => kept[i]);
  }
  return Int32Array.from(kept).sort((a, b) =>
    fileRank(a) - fileRank(b) || byte(a) - byte(b) || a - b
  );
}

/** The chunk table of rows read as arrays (`#chunkTable`'s columns), in the given order. */
function chunkTable(rows: unknown[][], order: Int32Array): ChunkTable {
  const table = emptyChunkTable(order.length);
  const kinds = new Map<string, string>();
  for (let at = 0; at < order.length; at++) setRow(table, at, rows[order[at]], kinds);
  table.rows = new ChunkRowIndex(table.ids);
  return table;
}

/** Ids spread over at most this many times their count are looked up in an array over the span. */
const DENSE_SPAN = 4;

/**
 * A chunk id's row in a chunk table. Chunk ids are AUTOINCREMENT: a build's ids start dense and
 * each refresh adds its new rows' ids above the rest, so one `Int32Array` over the span of the
 * table's ids (its row, or -1) stands in for a Map of 25k entries that every new generation built
 * again (most of the time `carriedTable` took); a span grown past `DENSE_SPAN` times the rows
 * (many refreshes since the build) takes a Map.
 */
export class ChunkRowIndex {
  readonly #base: number;
  readonly #dense: Int32Array | null;
  readonly #sparse: Map<number, number> | null;

  constructor(ids: Int32Array) {
    let min = Infinity;
    let max = -Infinity;
    for (let at = 0; at < ids.length; at++) {
      if (ids[at] < min) min = ids[at];
      if (ids[at] > max) max = ids[at];
    }
    this.#base = ids.length > 0 ? min : 0;
    const span = ids.length > 0 ? max - min + 1 : 0;
    if (span <= DENSE_SPAN * ids.length + 1024) {
      this.#dense = new Int32Array(span).fill(-1);
      for (let at = 0; at < ids.length; at++) this.#dense[ids[at] - this.#base] = at;
      this.#sparse = null;
    } else {
      this.#dense = null;
      this.#sparse = new Map();
      for (let at = 0; at < ids.length; at++) this.#sparse.set(ids[at], at);
    }
  }

  /** The row of chunk `id`, or undefined when the table does not hold it. */
  get(id: number): number | undefined {
    const dense = this.#dense;
    if (dense === null) return this.#sparse!.get(id);
    const row = dense[id - this.#base];
    return row === undefined || row < 0 ? undefined : row;
  }
}

/**
 * The chunk table of a later generation of the same build from an earlier one's and the rows
 * written since (`rows`: ids above every id the earlier table holds, in id order). Ids are
 * never reused (AUTOINCREMENT, files and chunks alike) and a chunk row is only ever deleted
 * with its file's row: a file still indexed under its id holds the very rows it held, and
 * every other row is new. The earlier table's rows of those files are still in content order
 * (paths do not move), the new rows are put in it as `contentOrder` puts them, and the two are
 * merged by file rank (a file's rows are all kept or all new): the table `contentOrder` makes
 * of every row, without reading them again.
 */
function carriedTable(
  earlier: ChunkTable,
  rows: unknown[][],
  rank: Map<number, number>,
): ChunkTable {
  // A file's rows are one run in content order: the runs of files still indexed, by rank.
  const kept: number[] = []; // [file rank, first row, end row]…
  let count = 0;
  for (let at = 0; at < earlier.ids.length;) {
    const fileId = earlier.fileIds[at];
    let end = at + 1;
    while (end < earlier.ids.length && earlier.fileIds[end] === fileId) end++;
    const fileRank = rank.get(fileId);
    if (fileRank !== undefined) {
      kept.push(fileRank, at, end);
      count += end - at;
    }
    at = end;
  }
  const added = contentOrder(rows, rank);
  const table = emptyChunkTable(count + added.length);
  const kinds = new Map<string, string>();
  let at = 0;
  let j = 0;
  const addUpTo = (limit: number) => {
    for (; j < added.length && rank.get(Number(rows[added[j]][1]))! < limit; j++, at++) {
      setRow(table, at, rows[added[j]], kinds);
    }
  };
  for (let k = 0; k < kept.length; k += 3) {
    // Kept and new rows never share a file, so ranks alone order the runs.
    addUpTo(kept[k]);
    const from = kept[k + 1];
    const end = kept[k + 2];
    table.ids.set(earlier.ids.subarray(from, end), at);
    table.fileIds.set(earlier.fileIds.subarray(from, end), at);
    table.startLines.set(earlier.startLines.subarray(from, end), at);
    table.endLines.set(earlier.endLines.subarray(from, end), at);
    table.startBytes.set(earlier.startBytes.subarray(from, end), at);
    table.hashes.set(earlier.hashes.subarray(from, end), at);
    const own: number[] = [];
    for (let row = from; row < end; row++, at++) {
      table.kinds[at] = earlier.kinds[row];
      table.symbolPaths[at] = earlier.symbolPaths[row];
      own.push(at);
    }
    table.byFile.set(earlier.fileIds[from], own);
  }
  addUpTo(Infinity);
  table.rows = new ChunkRowIndex(table.ids);
  return table;
}

function emptyChunkTable(count: number): ChunkTable {
  return {
    rows: new ChunkRowIndex(new Int32Array(0)),
    ids: new Int32Array(count),
    fileIds: new Int32Array(count),
    startLines: new Int32Array(count),
    endLines: new Int32Array(count),
    startBytes: new Int32Array(count),
    hashes: new Float64Array(count),
    kinds: new Array(count),
    symbolPaths: new Array(count),
    byFile: new Map(),
  };
}

/**
 * Puts a chunk read as an array (`#chunkTable`'s columns) at row `at` of a table being filled;
 * its kind is taken from `kinds` (one string per kind), or added to it.
 */
function setRow(table: ChunkTable, at: number, row: unknown[], kinds: Map<string, string>): void {
  let kind = kinds.get(row[5] as string);
  if (kind === undefined) kinds.set(kind = row[5] as string, kind);
  const id = Number(row[0]);
  const fileId = Number(row[1]);
  table.ids[at] = id;
  table.fileIds[at] = fileId;
  table.startLines[at] = Number(row[2]);
  table.endLines[at] = Number(row[3]);
  table.startBytes[at] = Number(row[4]);
  table.hashes[at] = Number(row[7]);
  table.kinds[at] = kind;
  table.symbolPaths[at] = row[6] as string | null;
  addToFile(table, fileId, at);
}

function addToFile(table: ChunkTable, fileId: number, at: number): void {
  const own = table.byFile.get(fileId);
  if (own) own.push(at);
  else table.byFile.set(fileId, [at]);
}

/** File ids by path. */
function fileIds(files: Map<number, FileEntry>): Map<string, number> {
  const ids = new Map<string, number>();
  for (const file of files.values()) ids.set(file.path, file.id);
  return ids;
}
