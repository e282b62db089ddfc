import { DatabaseSync } from "node:sqlite";
import { basename, join } from "node:path";
import { sha256Hex } from "../engine/hash.ts";
import { PIPELINE_VERSION, SCHEMA_SQL, SCHEMA_VERSION } from "./schema.ts";
import { readMeta, writeMeta } from "./meta.ts";
import { TargetReader } from "./reader.ts";
import { TargetWriter } from "./writer.ts";

/** Where a repository's target lives: one SQLite file per repository under the cache directory. */
export interface TargetLocation {
  /** Canonical (real) repository root. */
  root: string;
  directory: string;
  databasePath: string;
}

/** The cache directory: `$SEXTANT_CACHE_DIR`, else `$XDG_CACHE_HOME/sextant`, else `~/.cache/sextant`. */
export function defaultCacheDirectory(): string {
  const explicit = Deno.env.get("SEXTANT_CACHE_DIR");
  if (explicit) return explicit;
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  if (xdg) return join(xdg, "sextant");
  return join(Deno.env.get("HOME") ?? ".", ".cache", "sextant");
}

/** The stable target location of a canonical repository root. */
export function targetLocation(realRoot: string, cacheDirectory: string): TargetLocation {
  const directory = join(
    cacheDirectory,
    "repos",
    `${basename(realRoot) || "root"}-${sha256Hex(realRoot).slice(0, 16)}`,
  );
  return { root: realRoot, directory, databasePath: join(directory, "code-context.sqlite3") };
}

/** Why an existing target cannot be read as it is. */
export type TargetProblem = "missing" | "corrupt" | "schema_mismatch" | "pipeline_mismatch";

/** True for SQLite errors that mean the file is damaged rather than the query wrong. */
export function isCorruption(error: unknown): boolean {
  const message = (error as Error)?.message ?? "";
  return /malformed|not a database|file is not a database|disk image|database corrupt|SQLITE_CORRUPT|SQLITE_NOTADB/i
    .test(message);
}

function configure(db: DatabaseSync, readOnly: boolean): void {
  db.exec("PRAGMA busy_timeout = 10000");
  if (!readOnly) {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
  }
  db.exec("PRAGMA foreign_keys = ON");
  // A refresh is one transaction: the writer's cache holds its hot pages (the b-tree
  // interiors and the FTS segments being built); what spills goes to the WAL, unseen.
  db.exec(`PRAGMA cache_size = ${readOnly ? -4_096 : -32_768}`);
}

/** Checks that an open database is a target this build can read. */
export function checkTarget(db: DatabaseSync): TargetProblem | null {
  try {
    const schema = readMeta(db, "schema_version");
    if (schema !== String(SCHEMA_VERSION)) return "schema_mismatch";
    if (readMeta(db, "pipeline_version") !== String(PIPELINE_VERSION)) return "pipeline_mismatch";
    db.prepare("SELECT count(*) FROM source_files").get();
    return null;
  } catch (error) {
    if (/no such table/.test((error as Error).message)) return "schema_mismatch";
    return "corrupt";
  }
}

/**
 * Opens the target's one writer, creating or rebuilding the target when it is
 * missing, damaged or of another version. Returns why it was rebuilt, if it was.
 */
export function openTargetWriter(
  location: TargetLocation,
): { writer: TargetWriter; rebuilt: TargetProblem | null } {
  Deno.mkdirSync(location.directory, { recursive: true });
  let problem: TargetProblem | null = "missing";
  if (exists(location.databasePath)) {
    try {
      const db = new DatabaseSync(location.databasePath);
      configure(db, false);
      problem = checkTarget(db);
      if (problem === null) return { writer: new TargetWriter(db), rebuilt: null };
      db.close();
    } catch {
      problem = "corrupt";
    }
    removeDatabaseFiles(location.databasePath);
  }
  const db = createDatabase(location.databasePath);
  return { writer: new TargetWriter(db), rebuilt: problem === "missing" ? null : problem };
}

/** Opens a reader on the last committed generation, or reports why the target cannot be read. */
export function openTargetReader(
  location: TargetLocation,
): { reader: TargetReader; problem: null } | { reader: null; problem: TargetProblem } {
  if (!exists(location.databasePath)) return { reader: null, problem: "missing" };
  let db: DatabaseSync | null = null;
  try {
    db = new DatabaseSync(location.databasePath, { readOnly: true });
    configure(db, true);
    const problem = checkTarget(db);
    if (problem === null) {
      return { reader: new TargetReader(db, location.databasePath), problem: null };
    }
    db.close();
    return { reader: null, problem };
  } catch {
    try {
      db?.close();
    } catch { /* already closed */ }
    return { reader: null, problem: "corrupt" };
  }
}

/** Deletes the database and its WAL files (a rebuild starts from nothing). */
export function removeDatabaseFiles(databasePath: string): void {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) {
    try {
      Deno.removeSync(databasePath + suffix);
    } catch { /* absent */ }
  }
}

function createDatabase(databasePath: string): DatabaseSync {
  // Build under a temporary name, then rename into place: a half-created target is never seen.
  const temporary = `${databasePath}.building-${Deno.pid}`;
  removeDatabaseFiles(temporary);
  const fresh = new DatabaseSync(temporary);
  fresh.exec("PRAGMA journal_mode = DELETE");
  fresh.exec(SCHEMA_SQL);
  writeMeta(fresh, "schema_version", SCHEMA_VERSION);
  writeMeta(fresh, "pipeline_version", PIPELINE_VERSION);
  writeMeta(fresh, "generation", 0);
  writeMeta(fresh, "created_at", new Date().toISOString());
  fresh.close();
  Deno.renameSync(temporary, databasePath);
  const db = new DatabaseSync(databasePath);
  configure(db, false);
  return db;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}
