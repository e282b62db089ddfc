/** The `meta` table of a target: one string value per key (versions, generation, HEAD, reports). */
import type { DatabaseSync } from "node:sqlite";

/** Reads a meta value, or null. */
export function readMeta(db: DatabaseSync, key: string): string | null {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as
    | { value: string }
    | undefined;
  return row ? row.value : null;
}

/** Writes a meta value. */
export function writeMeta(db: DatabaseSync, key: string, value: string | number): void {
  db.prepare(
    "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  )
    .run(key, String(value));
}
