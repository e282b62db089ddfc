/** Values that cross between the parse Workers and the writer. */
import type { FileRows } from "../store/records.ts";
import type { ExtractionNodes, LanguageRules } from "./manifest.ts";

export type {
  ChunkRow,
  FileRows,
  ParseOutput,
  RelationRow,
  StoredChunk,
  SymbolRow,
} from "../store/records.ts";

/** A grammar as a parse Worker receives it: compiled, with its bytes, query text and extraction rules. */
export interface WorkerGrammar {
  language: string;
  /**
   * The grammar compiled once per process (`pool.ts`): each Worker instantiates it, and V8
   * shares the compiled code, and the optimised code any Worker's use has earned it, between
   * the process's Workers.
   */
  module: WebAssembly.Module;
  /** The bytes it was compiled from: web-tree-sitter's loader reads its dynamic-linking section. */
  wasm: Uint8Array;
  query: string;
  rules: LanguageRules;
  nodes: ExtractionNodes;
}

export interface ParseJob {
  id: number;
  root: string;
  path: string;
  language: string | null;
  /** The language's grammar, sent with the first job of that language a Worker gets. */
  grammar?: WorkerGrammar;
  /** Stored content hash: an equal hash answers `unchanged` without parsing. */
  knownHash: string | null;
  maxFileSize: number;
  /** The package root the file's module is named from (`package_roots.ts`), if any. */
  packageRoot: ModuleRoot | null;
  /** Milliseconds the file may take before it fails as timed out (the pool's default if absent). */
  timeoutMs?: number;
}

/** Where a file's module name starts (`package_roots.ts`). */
export interface ModuleRoot {
  /** Repository-relative directory the module path is read from ("" for the repository root). */
  dir: string;
  /** What the language's users call the package (`serde_json`, `@acme/ledger`); "" for Python. */
  name: string;
  /** The module the file is exported as (a package.json entry or subpath export), if it is. */
  exported: string | null;
}

/** The bytes of a file as read: size, mtime and content hash. */
export interface FileIdentity {
  size: number;
  mtimeMs: number;
  hash: string;
}

export type ParseReply =
  | { id: number; status: "unchanged"; hash: string; size: number; mtimeMs: number }
  | { id: number; status: "skipped"; reason: SkipReason; message: string }
  | {
    id: number;
    status: "failed";
    /** `timeout` and `crash` (the Worker ran out of time or memory) name the bytes in `file`. */
    stage: string;
    message: string;
    /** The bytes being parsed when the Worker timed out or crashed, when it had read them. */
    file?: FileIdentity;
    /** `file` was read by the pool after the failure (the Worker had not said what it read). */
    readAfter?: true;
  }
  | {
    id: number;
    status: "parsed";
    hash: string;
    size: number;
    mtimeMs: number;
    lineCount: number;
    capability: "graph" | "search";
    /** The file's rows as the target stores them (text, packed relations, vectors…). */
    rows: FileRows;
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
