/**
 * Compares two targets built from the same checkout, row for row: files, committed text and
 * statement ranges, chunks, the FTS vocabulary (term, documents, occurrences), vectors (except
 * those of a chunk text found under several symbol paths: which one is stored depends on which
 * parse Worker finished first), symbols, relations (unpacked), relation postings and index
 * errors. Rows are keyed by path,
 * not by row id, so two builds that inserted in another order still compare. A change to
 * extraction that must not change what is stored (a faster query run, a cheaper walk) is
 * checked by building a target before and after and running this.
 *
 *   deno run -A scripts/target_diff.ts A/code-context.sqlite3 B/code-context.sqlite3
 *
 * Prints one line per table (rows compared, differences) and the first differences; exits 1
 * when any table differs.
 */
import { DatabaseSync } from "node:sqlite";
import { unpackRelations } from "../src/store/relation_pack.ts";

const [pathA, pathB] = Deno.args;
if (!pathA || !pathB) {
  console.error("usage: target_diff.ts A.sqlite3 B.sqlite3");
  Deno.exit(2);
}
const a = new DatabaseSync(pathA, { readOnly: true });
const b = new DatabaseSync(pathB, { readOnly: true });

type Row = Record<string, unknown>;

/** A row as comparable text: blobs as hex. */
function key(row: Row): string {
  return JSON.stringify(
    row,
    (_, value) => value instanceof Uint8Array ? `0x${[...value].map(hex).join("")}` : value,
  );
}
function hex(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}

/** The rows of each file, unpacked relations included, in a deterministic order. */
const QUERIES: Record<string, string> = {
  source_files:
    `SELECT path, fingerprint, content_hash, size, mtime_ms, language, parser, capability,
      line_count, relation_count, terms_complete FROM source_files ORDER BY path`,
  file_text:
    `SELECT f.path, t.text, t.regions FROM file_text t JOIN source_files f ON f.id = t.file_id
      ORDER BY f.path`,
  source_chunks: `SELECT f.path, c.start_line, c.end_line, c.start_byte, c.end_byte, c.kind,
      c.symbol_path, c.content_hash FROM source_chunks c JOIN source_files f ON f.id = c.file_id
      ORDER BY f.path, c.id`,
  fts_vocabulary: `SELECT term, doc, cnt FROM source_chunks_vocab ORDER BY term`,
  // A vector is keyed by chunk text; chunks of equal text under different symbol paths have
  // different terms, and the first one written (whichever parse Worker finished first) wins.
  chunk_vectors: `SELECT content_hash, model, vector FROM chunk_vectors WHERE content_hash NOT IN
      (SELECT content_hash FROM source_chunks GROUP BY content_hash
       HAVING COUNT(DISTINCT coalesce(symbol_path, '')) > 1)
      ORDER BY content_hash, model`,
  code_symbols: `SELECT f.path, s.id, s.name, s.qualified_name, s.kind, s.start_line, s.start_col,
      s.end_line, s.end_col, s.signature, s.doc, s.parent_id, s.exported
      FROM code_symbols s JOIN source_files f ON f.id = s.file_id ORDER BY f.path, s.start_line,
      s.start_col, s.id`,
  relation_targets: `SELECT r.name, f.path FROM relation_targets r JOIN source_files f
      ON f.id = r.file_id ORDER BY r.name, f.path`,
  index_errors: `SELECT * FROM index_errors ORDER BY 1, 2`,
};

function rowsOf(db: DatabaseSync, table: string): string[] {
  if (table === "relations") {
    const packed = db.prepare(
      `SELECT f.path, r.data FROM file_relations r JOIN source_files f ON f.id = r.file_id
       ORDER BY f.path`,
    ).all() as { path: string; data: Uint8Array }[];
    return packed.flatMap(({ path, data }) =>
      unpackRelations(data).map((row, i) => key({ path, i, ...row }))
    );
  }
  const rows = db.prepare(QUERIES[table]).all() as Row[];
  return rows.map((row) => {
    if (table === "index_errors") {
      // When it was recorded is not what extraction made.
      const { first_seen: _first, last_seen: _last, ...rest } = row;
      return key(rest);
    }
    return key(row);
  });
}

let differing = 0;
for (const table of [...Object.keys(QUERIES), "relations"]) {
  const left = rowsOf(a, table);
  const right = rowsOf(b, table);
  const mismatches: string[] = [];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i] === right[i]) continue;
    if (mismatches.length < 3) {
      mismatches.push(`  A: ${left[i]?.slice(0, 300)}\n  B: ${right[i]?.slice(0, 300)}`);
    } else mismatches.push("");
  }
  console.log(
    `${table.padEnd(17)} ${String(left.length).padStart(9)} / ${
      String(right.length).padStart(9)
    } rows  ${mismatches.length === 0 ? "identical" : `${mismatches.length} differ`}`,
  );
  for (const line of mismatches.slice(0, 3)) console.log(line);
  if (mismatches.length > 0) differing++;
}
a.close();
b.close();
if (differing > 0) Deno.exit(1);
