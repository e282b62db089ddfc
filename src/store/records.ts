/**
 * The rows one parsed file contributes to its target: what the parse Workers
 * produce and the writer stores. They live with the store so the store never
 * reaches up into the indexer for its own input.
 */

export interface SymbolRow {
  id: string;
  name: string;
  qualified_name: string;
  kind: string;
  start_line: number;
  start_col: number;
  end_line: number;
  end_col: number;
  signature: string | null;
  doc: string | null;
  parent_id: string | null;
  exported: boolean;
}

export interface RelationRow {
  kind: string;
  from_symbol: string | null;
  target: string;
  receiver: string | null;
  module: string | null;
  alias: string | null;
  start_line: number;
  start_col: number;
  end_line: number;
  end_col: number;
}

export interface ChunkRow {
  chunk_key: string;
  start_line: number;
  end_line: number;
  start_byte: number;
  end_byte: number;
  kind: string;
  symbol_path: string | null;
  /** Of the symbol path and text (the key of the chunk's vectors). */
  content_hash: string;
  /** Space-separated code terms for FTS (symbol path terms first). */
  terms: string;
}

/** What parsing one file yields: a broken file is diagnostics, never a throw. */
export interface ParseOutput {
  symbols: SymbolRow[];
  relations: RelationRow[];
  chunks: ChunkRow[];
  diagnostics: string[];
  /** True when the tree was too broken to trust: keep the last good rows instead. */
  failed: boolean;
}

/** A chunk as stored: its row and the int8 hashing vector of its terms (`engine/vector.ts`). */
export interface StoredChunk extends ChunkRow {
  vector: Uint8Array;
}

/**
 * A parsed file in the form the target keeps it, made in the parse Worker so
 * the single writer only inserts: packed relations, compressed text, packed
 * statement ranges and chunk vectors.
 */
export interface FileRows {
  symbols: SymbolRow[];
  chunks: StoredChunk[];
  /** `relation_pack.ts`: the packed rows, their distinct targets and their count. */
  relations: { data: Uint8Array; targets: string[]; count: number };
  /** The distinct modules its import relations name, in source order (stored in file_imports). */
  imports: string[];
  /** The committed text: deflate-raw of its UTF-8 bytes (`packing.ts` `packText`). */
  text: Uint8Array;
  /** Statement units of a clean tree (`packing.ts` `packUnits`), else null. */
  regions: Uint8Array | null;
  /** Every code term of the text is in its chunks' terms (grep may prefilter by them). */
  termsComplete: boolean;
  diagnostics: string[];
  /** True when the tree was too broken to trust: keep the last good rows instead. */
  failed: boolean;
}
