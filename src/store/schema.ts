/**
 * The on-disk format of a repository target, versioned in one place.
 *
 * SCHEMA_VERSION changes when tables change; PIPELINE_VERSION when what fills
 * them changes (grammar queries, tokenizer, chunker). Either mismatch rebuilds
 * the target: an older target is never read with a newer schema.
 *
 * Schema changelog:
 *   1 — meta, source_files, source_chunks, source_chunks_fts (code terms +
 *       path), source_trigram (substring prefilter over committed text),
 *       code_symbols, code_relations, index_errors.
 *   2 — chunk_vectors (one vector per chunk content hash and model id, so an
 *       unchanged chunk is never vectorized again) replaces source_chunks.vector;
 *       source_chunks_vocab (fts5vocab) gives query terms their document frequency.
 *   3 — packed, for size and write speed: the committed text moves to file_text
 *       (deflate-raw of the UTF-8 bytes, beside the top-level statement ranges grep
 *       parses); relations are one packed BLOB per file (file_relations) plus a
 *       (target name → file) posting table (relation_targets); vectors are int8 with
 *       a float scale in a rowid table keyed by an integer chunk content hash; the
 *       trigram index is gone (grep's prefilter uses the chunk FTS terms, and
 *       source_files.terms_complete says where it may); code_symbols loses its
 *       qualified-name index.
 *   4 — index_errors records the bytes a parse ran out of time or memory on (size, mtime_ms,
 *       content_hash, fingerprint_key), so a refresh does not parse them again.
 *   5 — code_symbols is a rowid table (its rows appended in the order they are written) with a
 *       unique index on the symbol id, where the id was the key of a WITHOUT ROWID table; a
 *       target built from nothing gets its `DEFERRED_INDEXES` once its rows are in.
 *   6 — file_imports holds the modules each file's import relations name, apart from its
 *       packed relations: the dependency index reads every file's imports in a process that has
 *       not seen them (sympy: 2,074 packed relation BLOBs, 8.7 MB, read and scanned in
 *       134-212 ms, for the 37k import rows among 1.2M).
 *   7 — source_files and source_chunks ids are AUTOINCREMENT, never reused: a file still
 *       indexed under its id holds the chunk rows it held, and rows written later have higher
 *       ids, so a reader's chunk table for a new generation keeps the last one's rows of
 *       unchanged files and reads only the rows above its highest id (`TargetReader`).
 *   8 — code_symbols_separated: a partial index of the symbols whose name holds a separator
 *       (`.`, `:`, a backslash), which `symbols` reads once per generation (scanning the name
 *       index for them took 11-14 ms on sympy, which has none).
 *
 * Pipeline changelog:
 *   1 — tree-sitter tags queries for TypeScript, TSX, JavaScript and Python;
 *       code-aware tokenizer; AST-aware chunker; Markdown chunked at headings.
 *   2 — a chunk of one definition plus blank lines keeps its symbol path;
 *       dotted-path segments indexed once; functions in namespaces stay functions.
 *   3 — seventeen structured languages (Go, Rust, Java, C, C++, C#, Ruby, PHP,
 *       Kotlin, Swift, Scala, Bash, Lua added); reads / writes / type_of relations;
 *       one references row per site; @scope / @module naming; symbol start lines
 *       after annotations; JavaScript member and object-literal functions; more
 *       search-only text languages; per-file bounds.
 *   4 — newer grammars (npm packages with their own wasm; Kotlin's and Scala's queries
 *       rewritten for them), TypeScript call signatures on their own lines parsed,
 *       C# file-scoped namespaces own the file's types; Python modules named from
 *       the package roots a repository's manifests declare (a `src/` layout).
 *   5 — the parse Worker makes the stored form (packed relations, compressed text,
 *       statement ranges, int8 hashing vectors, whether chunk terms cover the text).
 *   6 — Rust modules named from the crate of a Cargo.toml (`serde_json::de`), JavaScript
 *       and TypeScript modules from a package.json name and source root (`@acme/ledger/tax`);
 *       a declaration file is named as the module it declares (`index.d.ts` → `index`).
 *   7 — file_text.regions holds statement units (top-level statements and, in Python,
 *       the statements of large compound statements' blocks) in place of top-level ranges.
 *   8 — a committed text over 16 KiB is deflated in 16 KiB pieces, each inflatable on its
 *       own (search's snippets inflate from the piece that holds their lines).
 *   9 — a chunk's content hash is of its symbol path and text, where it was of its text: a
 *       hashing vector counts the symbol path's terms, so one text under two symbol paths kept
 *       the vector of whichever chunk was written first (the order parse Workers finished in).
 */
export const SCHEMA_VERSION = 8;
export const PIPELINE_VERSION = 9;

/** A symbol name holding a separator (`.`, `:` or a backslash): `code_symbols_separated`. */
export const SEPARATED_NAME =
  "(instr(name, '.') > 0 OR instr(name, ':') > 0 OR instr(name, '\\') > 0)";

/**
 * The indexes whose keys are unrelated to the order rows are written in (a symbol id is a hash,
 * a name any name, a chunk's content key a hash): kept up row by row, each insert lands on a
 * random page of the index, which in a cold index's one large transaction costs far more than
 * the row itself (sympy: the symbols' inserts took 2.4 s of the writer's CPU with these indexes,
 * 0.3 s without). A target built from nothing (`beginReplacement`) is loaded without them and
 * creates them, each with one sort, before it commits (`TargetWriter.commit`); every other
 * target has them from the start (`SCHEMA_SQL` plus these).
 */
export const DEFERRED_INDEXES: readonly string[] = [
  "CREATE UNIQUE INDEX IF NOT EXISTS code_symbols_id ON code_symbols(id)",
  "CREATE INDEX IF NOT EXISTS code_symbols_name ON code_symbols(name COLLATE NOCASE)",
  `CREATE INDEX IF NOT EXISTS code_symbols_separated ON code_symbols(id) WHERE ${SEPARATED_NAME}`,
  "CREATE INDEX IF NOT EXISTS source_chunks_hash ON source_chunks(content_hash)",
];

/** The tables, their triggers and the indexes kept up while a target is loaded. */
export const SCHEMA_SQL = `
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

-- terms_complete: every code term of the text is in the file's chunk FTS terms (every
-- non-blank line is in a chunk and no chunk boundary cuts a word), so grep may skip a file
-- whose chunks lack a term of its pattern.
CREATE TABLE source_files (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  path TEXT NOT NULL UNIQUE,
  fingerprint TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms INTEGER NOT NULL,
  language TEXT,
  parser TEXT NOT NULL,
  capability TEXT NOT NULL CHECK (capability IN ('graph', 'search')),
  line_count INTEGER NOT NULL,
  relation_count INTEGER NOT NULL DEFAULT 0,
  terms_complete INTEGER NOT NULL DEFAULT 0
);

-- The committed text (deflate-raw of its UTF-8 bytes) and the statement units of its tree
-- grep parses (packed; null without a clean tree).
CREATE TABLE file_text (
  file_id INTEGER PRIMARY KEY REFERENCES source_files(id) ON DELETE CASCADE,
  text BLOB NOT NULL,
  regions BLOB
);

CREATE TABLE source_chunks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  file_id INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  start_byte INTEGER NOT NULL,
  end_byte INTEGER NOT NULL,
  kind TEXT NOT NULL,
  symbol_path TEXT,
  -- The first 52 bits of the SHA-256 of the chunk's symbol path and text (its vectors' key).
  content_hash INTEGER NOT NULL
);
CREATE INDEX source_chunks_file ON source_chunks(file_id);

CREATE VIRTUAL TABLE source_chunks_fts USING fts5(
  terms, path, content = '', contentless_delete = 1,
  tokenize = "unicode61 remove_diacritics 2 tokenchars '_'"
);

CREATE VIRTUAL TABLE source_chunks_vocab USING fts5vocab(source_chunks_fts, row);

-- Vectors per chunk content hash and model (the hashing vectorizer's id, or a provider's):
-- a float32 scale, then one int8 per dimension.
CREATE TABLE chunk_vectors (
  id INTEGER PRIMARY KEY,
  content_hash INTEGER NOT NULL,
  model TEXT NOT NULL,
  vector BLOB NOT NULL
);
CREATE UNIQUE INDEX chunk_vectors_key ON chunk_vectors(content_hash, model);

CREATE TABLE code_symbols (
  id TEXT NOT NULL,
  file_id INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  qualified_name TEXT NOT NULL,
  kind TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  start_col INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  end_col INTEGER NOT NULL,
  signature TEXT,
  doc TEXT,
  parent_id TEXT,
  exported INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX code_symbols_file ON code_symbols(file_id);

-- Every relation of a file, packed (store/relation_pack.ts).
CREATE TABLE file_relations (
  file_id INTEGER PRIMARY KEY REFERENCES source_files(id) ON DELETE CASCADE,
  data BLOB NOT NULL
);

-- The distinct modules a file's import relations name, in source order, as a JSON array (only
-- files with imports have a row): what the dependency index reads of every file.
CREATE TABLE file_imports (
  file_id INTEGER PRIMARY KEY REFERENCES source_files(id) ON DELETE CASCADE,
  modules TEXT NOT NULL
);

-- Which files write a relation to a target name. Kept by the writer from the packed rows
-- it replaces (no file_id index: a file's names are in its packed relations).
CREATE TABLE relation_targets (
  name TEXT NOT NULL,
  file_id INTEGER NOT NULL,
  PRIMARY KEY (name, file_id)
) WITHOUT ROWID;

-- size, mtime_ms, content_hash and fingerprint_key: for a failure of the file's own bytes (a
-- parse out of time, a Worker lost to it), the bytes and settings it failed on, so that they are
-- not parsed again until they change (null for every other error; content_hash also when the
-- bytes were not read yet).
CREATE TABLE index_errors (
  path TEXT PRIMARY KEY,
  stage TEXT NOT NULL,
  message TEXT NOT NULL,
  first_seen TEXT NOT NULL,
  last_seen TEXT NOT NULL,
  size INTEGER,
  mtime_ms INTEGER,
  content_hash TEXT,
  fingerprint_key TEXT
) WITHOUT ROWID;

-- The FTS projection follows its owner; cascaded deletes fire this too.
CREATE TRIGGER source_chunks_fts_delete AFTER DELETE ON source_chunks BEGIN
  DELETE FROM source_chunks_fts WHERE rowid = old.id;
END;
`;
