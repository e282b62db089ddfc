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
 */
export const SCHEMA_VERSION = 2;
export const PIPELINE_VERSION = 4;

export const SCHEMA_SQL = `
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE source_files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  fingerprint TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms INTEGER NOT NULL,
  language TEXT,
  parser TEXT NOT NULL,
  capability TEXT NOT NULL CHECK (capability IN ('graph', 'search')),
  line_count INTEGER NOT NULL,
  text TEXT NOT NULL
);

CREATE TABLE source_chunks (
  id INTEGER PRIMARY KEY,
  chunk_key TEXT NOT NULL,
  file_id INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  start_byte INTEGER NOT NULL,
  end_byte INTEGER NOT NULL,
  kind TEXT NOT NULL,
  symbol_path TEXT,
  content_hash TEXT NOT NULL
);
CREATE INDEX source_chunks_file ON source_chunks(file_id);
CREATE INDEX source_chunks_hash ON source_chunks(content_hash);

CREATE VIRTUAL TABLE source_chunks_fts USING fts5(
  terms, path, content = '', contentless_delete = 1,
  tokenize = "unicode61 remove_diacritics 2 tokenchars '_'"
);

CREATE VIRTUAL TABLE source_chunks_vocab USING fts5vocab(source_chunks_fts, row);

-- Vectors per chunk content hash and model (the hashing vectorizer's id, or a provider's).
CREATE TABLE chunk_vectors (
  content_hash TEXT NOT NULL,
  model TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (content_hash, model)
) WITHOUT ROWID;

CREATE VIRTUAL TABLE source_trigram USING fts5(
  text, content = 'source_files', content_rowid = 'id', tokenize = 'trigram'
);

CREATE TABLE code_symbols (
  id TEXT PRIMARY KEY,
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
) WITHOUT ROWID;
CREATE INDEX code_symbols_file ON code_symbols(file_id);
CREATE INDEX code_symbols_name ON code_symbols(name COLLATE NOCASE);
CREATE INDEX code_symbols_qualified ON code_symbols(qualified_name);

CREATE TABLE code_relations (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL REFERENCES source_files(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  from_symbol TEXT,
  target TEXT NOT NULL,
  receiver TEXT,
  module TEXT,
  alias TEXT,
  start_line INTEGER NOT NULL,
  start_col INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  end_col INTEGER NOT NULL
);
CREATE INDEX code_relations_file ON code_relations(file_id);
CREATE INDEX code_relations_target ON code_relations(target, kind);
CREATE INDEX code_relations_from ON code_relations(from_symbol);

CREATE TABLE index_errors (
  path TEXT PRIMARY KEY,
  stage TEXT NOT NULL,
  message TEXT NOT NULL,
  first_seen TEXT NOT NULL,
  last_seen TEXT NOT NULL
) WITHOUT ROWID;

-- The FTS projections follow their owners; cascaded deletes fire these too.
CREATE TRIGGER source_chunks_fts_delete AFTER DELETE ON source_chunks BEGIN
  DELETE FROM source_chunks_fts WHERE rowid = old.id;
END;
CREATE TRIGGER source_trigram_insert AFTER INSERT ON source_files BEGIN
  INSERT INTO source_trigram(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER source_trigram_delete AFTER DELETE ON source_files BEGIN
  INSERT INTO source_trigram(source_trigram, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER source_trigram_update AFTER UPDATE OF text ON source_files BEGIN
  INSERT INTO source_trigram(source_trigram, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO source_trigram(rowid, text) VALUES (new.id, new.text);
END;
`;
