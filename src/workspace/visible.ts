/**
 * What a path-restricted caller may see of one target, and every figure it is
 * shown computed over that part only: the visible files, their chunks and
 * full-text tokens (the statistics search ranks with), and the version of the
 * visible part, which stands in for the generation.
 *
 * Why a version and not the generation: a hidden file's edit moves the
 * target's generation, and a generation a caller can watch would tell it that
 * something it may not see changed. The version is a 48-bit digest of the
 * visible files' paths, content hashes, languages and capabilities: it changes
 * when, and only when, a file the caller may see is added, changed or removed,
 * and equal versions mean equal visible content. It is not ordered. Its `head`
 * is null, since a commit covers hidden files too.
 *
 * Each view is computed once per generation and rule, and kept on the target's
 * reader; callers who see every path never compute one.
 */
import { sha256Hex } from "../engine/hash.ts";
import { MemoKey, type TargetReader } from "../store/reader.ts";

/** A caller's path rule for one repository: a stable key (for caches) and the test itself. */
export interface PathRule {
  /** Equal keys mean equal rules (the rule's globs); null: not kept between requests. */
  key: string | null;
  allow: (path: string) => boolean;
}

/** The part of one generation a path rule lets a caller see. */
export interface VisibleView {
  /** Ids and paths of the visible files. */
  files: ReadonlySet<number>;
  paths: ReadonlySet<string>;
  /** Chunks of the visible files, and their full-text tokens (code and path terms). */
  chunks: number;
  tokens: number;
  /** The version of the visible part (see the module comment). */
  version: number;
}

const SIZES = new MemoKey<Map<number, { fileId: number; tokens: number }>>("visible:chunk-sizes");

/** Every chunk's full-text size and file, by chunk id (per generation, whatever the rule). */
export function chunkSizes(
  reader: TargetReader,
): ReadonlyMap<number, { fileId: number; tokens: number }> {
  return reader.memo(SIZES, () => {
    const sizes = new Map<number, { fileId: number; tokens: number }>();
    for (const row of reader.chunkSizes()) {
      sizes.set(row.chunkId, { fileId: row.fileId, tokens: row.tokens });
    }
    return sizes;
  });
}

/** The visible part of a reader's generation under a rule (kept on the reader per rule). */
export function visibleView(reader: TargetReader, rule: PathRule): VisibleView {
  if (rule.key === null) return computeView(reader, rule);
  return reader.memo(
    new MemoKey<VisibleView>(`visible:${rule.key}`),
    () => computeView(reader, rule),
  );
}

function computeView(reader: TargetReader, rule: PathRule): VisibleView {
  const table = reader.fileTable();
  const hashes = new Map(reader.allFiles().map((file) => [file.id, file]));
  const files = new Set<number>();
  const paths = new Set<string>();
  const parts: string[] = [];
  // Path order: the version does not depend on row ids, which differ between histories.
  for (const file of [...table.files.values()].sort((a, b) => a.path < b.path ? -1 : 1)) {
    if (!rule.allow(file.path)) continue;
    files.add(file.id);
    paths.add(file.path);
    const hash = hashes.get(file.id)?.contentHash ?? "";
    parts.push(`${file.path}\0${hash}\0${file.language ?? ""}\0${file.capability}`);
  }
  let chunks = 0;
  let tokens = 0;
  for (const size of chunkSizes(reader).values()) {
    if (!files.has(size.fileId)) continue;
    chunks++;
    tokens += size.tokens;
  }
  const version = parseInt(sha256Hex(parts.join("\n")).slice(0, 12), 16) || 1;
  return { files, paths, chunks, tokens, version };
}
