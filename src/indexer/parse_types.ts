/** Values that cross between the parse Workers and the writer. */
import type { ParseOutput } from "../store/records.ts";

export type { ChunkRow, ParseOutput, RelationRow, SymbolRow } from "../store/records.ts";

export interface ParseJob {
  id: number;
  root: string;
  path: string;
  language: string | null;
  /** Stored content hash: an equal hash answers `unchanged` without parsing. */
  knownHash: string | null;
  maxFileSize: number;
  /** The package root the file's module is named from (`src` of a Python src layout), if any. */
  packageRoot: string | null;
}

export type ParseReply =
  | { id: number; status: "unchanged"; hash: string; size: number; mtimeMs: number }
  | { id: number; status: "skipped"; reason: SkipReason; message: string }
  | { id: number; status: "failed"; stage: string; message: string }
  | {
    id: number;
    status: "parsed";
    hash: string;
    size: number;
    mtimeMs: number;
    text: string;
    lineCount: number;
    capability: "graph" | "search";
    output: ParseOutput;
  };

export type SkipReason =
  | "default_exclude"
  | "secret"
  | "settings_exclude"
  | "oversize"
  | "binary"
  | "not_utf8"
  | "symlink_escape"
  | "symlink"
  | "hard_link"
  | "unreadable"
  | "not_a_file";
