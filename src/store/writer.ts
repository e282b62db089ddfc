import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { HeldFailure, StoredFile } from "../engine/plan.ts";
import { HASH_MODEL_ID, quantizedBytes } from "../engine/vector.ts";
import { readMeta, writeMeta } from "./meta.ts";
import { DEFERRED_INDEXES } from "./schema.ts";
import { RemovedTotals } from "./fts_totals.ts";
import { contentKey, unpackText } from "./packing.ts";
import { packedTargets } from "./relation_pack.ts";
import type { FileRows } from "./records.ts";

export interface FileRecord {
  path: string;
  fingerprintKey: string;
  contentHash: string;
  size: number;
  mtimeMs: number;
  language: string | null;
  parser: string;
  capability: "graph" | "search";
  lineCount: number;
  /** The file's rows as the parse Worker packed them. */
  rows: FileRows;
}

/** A chunk content to embed: its content key and its text. */
export interface ChunkSource {
  hash: number;
  text: string;
}

/**
 * The single writer of a target. Every change of one refresh happens inside
 * one transaction, so readers see either the old generation or the new one.
 * The parse Workers hand it rows already packed: per file it inserts one file
 * row, its text, its packed relations with their target postings, its symbols
 * and its chunks (with their FTS terms and any vector not stored yet).
 */
export class TargetWriter {
  readonly #db: DatabaseSync;
  readonly #statements: Record<string, StatementSync>;
  #open = false;
  changed = false;
  /** Content hashes of chunks removed in this transaction: their vectors may be orphans. */
  readonly #removedHashes = new Set<number>();
  /** FTS rows deleted in this transaction, taken off FTS5's totals at the commit. */
  readonly #removedFts = new RemovedTotals();
  /** Hashing vectors stored in this refresh, and chunks whose stored vector was reused. */
  readonly vectors = { computed: 0, reused: 0 };

  /** The `DEFERRED_INDEXES` this target was loaded without, until the commit creates them. */
  #deferredIndexes: boolean;

  /**
   * `deferredIndexes`: the target (one built from nothing) has none of `DEFERRED_INDEXES` yet;
   * the commit creates them.
   */
  constructor(db: DatabaseSync, options: { deferredIndexes?: boolean } = {}) {
    this.#db = db;
    this.#deferredIndexes = options.deferredIndexes ?? false;
    const prepare = (sql: string) => db.prepare(sql);
    this.#statements = {
      fileId: prepare("SELECT id FROM source_files WHERE path = ?"),
      relationsOf: prepare("SELECT data FROM file_relations WHERE file_id = ?"),
      deletePosting: prepare("DELETE FROM relation_targets WHERE name = ? AND file_id = ?"),
      deleteFile: prepare("DELETE FROM source_files WHERE id = ?"),
      insertFile: prepare(
        `INSERT INTO source_files(path, fingerprint, content_hash, size, mtime_ms, language, parser,
          capability, line_count, relation_count, terms_complete)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertText: prepare("INSERT INTO file_text(file_id, text, regions) VALUES (?, ?, ?)"),
      insertChunk: prepare(
        `INSERT INTO source_chunks(file_id, start_line, end_line, start_byte, end_byte, kind,
          symbol_path, content_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertVector: prepare(
        "INSERT OR IGNORE INTO chunk_vectors(content_hash, model, vector) VALUES (?, ?, ?)",
      ),
      replaceVector: prepare(
        "INSERT OR REPLACE INTO chunk_vectors(content_hash, model, vector) VALUES (?, ?, ?)",
      ),
      chunkHashesOf: prepare("SELECT DISTINCT content_hash FROM source_chunks WHERE file_id = ?"),
      ftsSizesOf: prepare(
        `SELECT d.sz AS sz FROM source_chunks c
           JOIN source_chunks_fts_docsize d ON d.id = c.id WHERE c.file_id = ?`,
      ),
      dropVectorIfOrphan: prepare(
        `DELETE FROM chunk_vectors WHERE content_hash = ? AND NOT EXISTS
          (SELECT 1 FROM source_chunks c WHERE c.content_hash = ?)`,
      ),
      insertFts: prepare("INSERT INTO source_chunks_fts(rowid, terms, path) VALUES (?, ?, ?)"),
      insertSymbol: prepare(
        `INSERT OR REPLACE INTO code_symbols(id, file_id, name, qualified_name, kind, start_line,
          start_col, end_line, end_col, signature, doc, parent_id, exported)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertRelations: prepare("INSERT INTO file_relations(file_id, data) VALUES (?, ?)"),
      insertImports: prepare("INSERT INTO file_imports(file_id, modules) VALUES (?, ?)"),
      insertPosting: prepare(
        "INSERT OR IGNORE INTO relation_targets(name, file_id) VALUES (?, ?)",
      ),
      touch: prepare("UPDATE source_files SET size = ?, mtime_ms = ? WHERE path = ?"),
      upsertError: prepare(
        `INSERT INTO index_errors(path, stage, message, first_seen, last_seen, size, mtime_ms,
           content_hash, fingerprint_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(path) DO UPDATE SET stage = excluded.stage, message = excluded.message,
         last_seen = excluded.last_seen, size = excluded.size, mtime_ms = excluded.mtime_ms,
         content_hash = excluded.content_hash, fingerprint_key = excluded.fingerprint_key`,
      ),
      touchError: prepare(
        `UPDATE index_errors SET size = ?, mtime_ms = ?
          WHERE path = ? AND fingerprint_key IS NOT NULL`,
      ),
      clearError: prepare("DELETE FROM index_errors WHERE path = ?"),
    };
  }

  /** Closes the connection (rolling back a transaction still open). */
  close(): void {
    this.rollback();
    this.#db.close();
  }

  /** A meta value as committed (or as written in the open transaction), or null. */
  meta(key: string): string | null {
    return readMeta(this.#db, key);
  }

  /** How many files have an `index_errors` row. */
  errorCount(): number {
    const row = this.#db.prepare("SELECT count(*) AS n FROM index_errors").get() as { n: number };
    return Number(row.n);
  }

  /**
   * One chunk per content hash that has no vector for `model` yet, with its
   * text (cut from the committed text of a file holding it).
   */
  chunksWithoutVector(model: string): ChunkSource[] {
    const rows = this.#db.prepare(
      `SELECT c.content_hash AS hash, c.file_id AS file_id, c.start_byte AS start,
              c.end_byte AS end
         FROM source_chunks c
        WHERE NOT EXISTS (SELECT 1 FROM chunk_vectors v
                           WHERE v.content_hash = c.content_hash AND v.model = ?)
        GROUP BY c.content_hash ORDER BY c.file_id`,
    ).all(model);
    const text = this.#db.prepare("SELECT text FROM file_text WHERE file_id = ?");
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    const sources: ChunkSource[] = [];
    let fileId = -1;
    let bytes = new Uint8Array(0);
    for (const row of rows) {
      if (Number(row.file_id) !== fileId) {
        fileId = Number(row.file_id);
        const packed = text.get(fileId)?.text as Uint8Array | undefined;
        bytes = encoder.encode(packed ? unpackText(packed) : "");
      }
      // Chunk offsets are bytes of the committed text.
      sources.push({
        hash: Number(row.hash),
        text: decoder.decode(bytes.subarray(Number(row.start), Number(row.end))),
      });
    }
    return sources;
  }

  /** How many distinct chunk contents the target holds. */
  distinctChunkContents(): number {
    const row = this.#db.prepare("SELECT count(DISTINCT content_hash) AS n FROM source_chunks")
      .get() as { n: number };
    return Number(row.n);
  }

  /** Stores (or replaces) the vector of a chunk content for a model. */
  storeVector(contentHash: number, model: string, vector: Float32Array): void {
    this.#statements.replaceVector.run(contentHash, model, quantizedBytes(vector));
  }

  /** Takes the write lock (single-flight across processes) and opens the transaction. */
  begin(): void {
    this.#db.exec("BEGIN IMMEDIATE");
    this.#open = true;
  }

  /** The stored state of every file, for planning. */
  storedFiles(): Map<string, StoredFile> {
    // Rows as arrays (no object per row): every refresh reads every file's row.
    const statement = this.#db.prepare(
      "SELECT path, size, mtime_ms, content_hash, fingerprint FROM source_files",
    );
    // In node:sqlite, not yet in Deno's types.
    (statement as StatementSync & { setReturnArrays(on: boolean): void }).setReturnArrays(true);
    const stored = new Map<string, StoredFile>();
    for (const row of statement.all() as unknown as [string, number, number, string, string][]) {
      const [path, size, mtimeMs, contentHash, fingerprint] = row;
      stored.set(path, {
        size,
        mtimeMs,
        contentHash,
        fingerprintKey: fingerprint.slice(fingerprint.indexOf(":") + 1),
      });
    }
    return stored;
  }

  /**
   * Paths whose `index_errors` row may clear on a retry: every error but a
   * syntax report (the same bytes and parser report the same syntax errors).
   */
  retryPaths(): Set<string> {
    const rows = this.#db.prepare("SELECT path FROM index_errors WHERE stage <> 'syntax'")
      .all() as { path: string }[];
    return new Set(rows.map((row) => row.path));
  }

  /** Replaces every row owned by one file. */
  replaceFile(record: FileRecord): void {
    // No savepoint per file: FTS5 flushes its pending terms into a new segment at
    // every savepoint, which made a cold index several times slower. A file whose
    // rows fail half-way is removed whole instead, and the caller records why.
    this.changed = true;
    try {
      this.#replaceFileRows(record);
    } catch (error) {
      this.#removeFile(record.path);
      throw error;
    }
  }

  #replaceFileRows(record: FileRecord): void {
    const s = this.#statements;
    const rows = record.rows;
    this.#removeFile(record.path);
    const fileId = Number(
      s.insertFile.run(
        record.path,
        `${record.contentHash}:${record.fingerprintKey}`,
        record.contentHash,
        record.size,
        record.mtimeMs,
        record.language,
        record.parser,
        record.capability,
        record.lineCount,
        rows.relations.count,
        rows.termsComplete ? 1 : 0,
      ).lastInsertRowid,
    );
    s.insertText.run(fileId, rows.text, rows.regions);
    const pathTerms = record.path.replace(/[/._-]+/g, " ");
    for (const chunk of rows.chunks) {
      const hash = contentKey(chunk.content_hash);
      const chunkId = s.insertChunk.run(
        fileId,
        chunk.start_line,
        chunk.end_line,
        chunk.start_byte,
        chunk.end_byte,
        chunk.kind,
        chunk.symbol_path,
        hash,
      ).lastInsertRowid;
      s.insertFts.run(chunkId, chunk.terms, pathTerms);
      if (Number(s.insertVector.run(hash, HASH_MODEL_ID, chunk.vector).changes) > 0) {
        this.vectors.computed++;
      } else {
        this.vectors.reused++;
      }
    }
    for (const symbol of rows.symbols) {
      s.insertSymbol.run(
        symbol.id,
        fileId,
        symbol.name,
        symbol.qualified_name,
        symbol.kind,
        symbol.start_line,
        symbol.start_col,
        symbol.end_line,
        symbol.end_col,
        symbol.signature,
        symbol.doc,
        symbol.parent_id,
        symbol.exported ? 1 : 0,
      );
    }
    if (rows.relations.count > 0) {
      s.insertRelations.run(fileId, rows.relations.data);
      for (const target of rows.relations.targets) s.insertPosting.run(target, fileId);
    }
    if (rows.imports.length > 0) s.insertImports.run(fileId, JSON.stringify(rows.imports));
  }

  /** Removes a file's rows: its postings by hand, everything else by cascade. */
  #removeFile(path: string): void {
    const s = this.#statements;
    const row = s.fileId.get(path) as { id: number } | undefined;
    if (!row) return;
    const fileId = Number(row.id);
    const packed = s.relationsOf.get(fileId) as { data: Uint8Array } | undefined;
    if (packed) {
      for (const target of packedTargets(packed.data)) s.deletePosting.run(target, fileId);
    }
    for (const row of s.chunkHashesOf.all(fileId)) {
      this.#removedHashes.add(Number(row.content_hash));
    }
    for (const row of s.ftsSizesOf.all(fileId)) this.#removedFts.add(row.sz as Uint8Array);
    s.deleteFile.run(fileId);
  }

  /** Removes a file and, by cascade, its text, chunks, FTS rows, symbols and relations. */
  deleteFile(path: string): void {
    this.#removeFile(path);
    this.#statements.clearError.run(path);
    this.changed = true;
  }

  /** Records new stat data for a file whose bytes did not change. */
  touchFile(path: string, size: number, mtimeMs: number): void {
    this.#statements.touch.run(size, mtimeMs, path);
  }

  /**
   * Records a file's error; `held` names the bytes (and settings) a parse ran out of time or
   * memory on, which `heldFailures` hands the next plan so they are not parsed again.
   */
  recordError(path: string, stage: string, message: string, held?: HeldFailure): void {
    const now = new Date().toISOString();
    this.#statements.upsertError.run(
      path,
      stage,
      message.slice(0, 1000),
      now,
      now,
      held?.size ?? null,
      held?.mtimeMs ?? null,
      held?.contentHash ?? null,
      held?.fingerprintKey ?? null,
    );
  }

  /** Files whose last parse ran out of time or memory, with the bytes it failed on. */
  heldFailures(): Map<string, HeldFailure> {
    const rows = this.#db.prepare(
      `SELECT path, size, mtime_ms, content_hash, fingerprint_key FROM index_errors
        WHERE fingerprint_key IS NOT NULL`,
    ).all() as {
      path: string;
      size: number;
      mtime_ms: number;
      content_hash: string | null;
      fingerprint_key: string;
    }[];
    return new Map(rows.map((row) => [row.path, {
      size: Number(row.size),
      mtimeMs: Number(row.mtime_ms),
      contentHash: row.content_hash,
      fingerprintKey: row.fingerprint_key,
    }]));
  }

  /** New stat data for the bytes of a held failure (found equal under a new mtime). */
  touchError(path: string, size: number, mtimeMs: number): void {
    this.#statements.touchError.run(size, mtimeMs, path);
  }

  clearError(path: string): void {
    this.#statements.clearError.run(path);
  }

  /** Commits; bumps `generation` only when content changed. Returns the generation. */
  commit(
    meta: { head: string | null; settingsHash: string; extra: Record<string, string> },
  ): number {
    if (this.#deferredIndexes) this.#createDeferredIndexes();
    let generation = Number(readMeta(this.#db, "generation") ?? "0");
    const headChanged = (readMeta(this.#db, "head") ?? "") !== (meta.head ?? "");
    if (this.changed || headChanged) {
      if (this.changed) {
        generation++;
        // Vectors of chunks that no longer exist go; those still referenced stay for reuse.
        for (const hash of this.#removedHashes) this.#statements.dropVectorIfOrphan.run(hash, hash);
      }
      writeMeta(this.#db, "generation", generation);
      writeMeta(this.#db, "head", meta.head ?? "");
      writeMeta(this.#db, "settings_hash", meta.settingsHash);
      writeMeta(this.#db, "committed_at", new Date().toISOString());
    }
    for (const [key, value] of Object.entries(meta.extra)) {
      if (readMeta(this.#db, key) !== value) writeMeta(this.#db, key, value);
    }
    if (this.#removedFts.rows > 0) this.#takeRemovedFromFtsTotals();
    this.#db.exec("COMMIT");
    this.#open = false;
    this.#removedHashes.clear();
    this.#removedFts.clear();
    return generation;
  }

  /**
   * Creates the indexes a target built from nothing was loaded without. Loaded without the
   * unique index, a symbol id written by two files (an id is a hash of path, name, kind and
   * ordinal; a file written again has its first rows removed) has two rows: the last one written
   * stays, as `INSERT OR REPLACE` would have left it.
   */
  #createDeferredIndexes(): void {
    for (const index of DEFERRED_INDEXES) {
      try {
        this.#db.exec(index);
      } catch (error) {
        if (!/UNIQUE constraint failed: code_symbols\.id/.test((error as Error)?.message)) {
          throw error;
        }
        this.#db.exec(
          `DELETE FROM code_symbols WHERE rowid NOT IN
             (SELECT max(rowid) FROM code_symbols GROUP BY id)`,
        );
        this.#db.exec(index);
      }
    }
    this.#deferredIndexes = false;
  }

  /**
   * Takes the rows this transaction deleted off FTS5's averages record (`fts_totals.ts`). FTS5
   * writes its totals when it flushes, and reads them again before its next change: flushed
   * first, the record it wrote is the one corrected, and nothing writes it again before the commit.
   */
  #takeRemovedFromFtsTotals(): void {
    const db = this.#db as DatabaseSync & { enableDefensive?(on: boolean): void };
    // A runtime without the switch keeps FTS5's totals as FTS5 leaves them (they only grow).
    if (typeof db.enableDefensive !== "function") return;
    this.#db.exec("INSERT INTO source_chunks_fts(source_chunks_fts) VALUES('flush')");
    const row = this.#db.prepare("SELECT block FROM source_chunks_fts_data WHERE id = 1").get() as
      | { block: Uint8Array }
      | undefined;
    if (!row) return;
    // SQLite's defensive mode keeps FTS5's own tables read-only to SQL: lifted for this one
    // statement (node:sqlite's `enableDefensive`, not yet in Deno's types).
    db.enableDefensive(false);
    try {
      db.prepare("UPDATE source_chunks_fts_data SET block = ? WHERE id = 1").run(
        this.#removedFts.subtractFrom(row.block),
      );
    } finally {
      db.enableDefensive(true);
    }
  }

  rollback(): void {
    this.#removedHashes.clear();
    this.#removedFts.clear();
    if (!this.#open) return;
    this.#open = false;
    try {
      this.#db.exec("ROLLBACK");
    } catch { /* no transaction */ }
  }
}
