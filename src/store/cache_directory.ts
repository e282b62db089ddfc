/**
 * Where targets live by default; a module of its own so that what only needs the path (the
 * config, the daemon's socket) does not load the store.
 */
import { join } from "node:path";

/** The cache directory: `$SEXTANT_CACHE_DIR`, else `$XDG_CACHE_HOME/sextant`, else `~/.cache/sextant`. */
export function defaultCacheDirectory(): string {
  const explicit = Deno.env.get("SEXTANT_CACHE_DIR");
  if (explicit) return explicit;
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  if (xdg) return join(xdg, "sextant");
  return join(Deno.env.get("HOME") ?? ".", ".cache", "sextant");
}
