import { join } from "node:path";
import { sha256Hex } from "../engine/hash.ts";
import { readConfinedText } from "./confined.ts";

/**
 * `.code-index/settings.yml` of one repository: include/exclude globs, the size above which a
 * file is not indexed, how long one file may take to parse, per-extension language overrides
 * and declared (never run) chunkers.
 *
 * The repository's file is the repository's own, so it may tighten the workspace's limits but
 * never loosen them: `max_file_size` above the workspace's limit and `parse_timeout_ms` above
 * the built-in timeout are capped, and the cap is reported (`capped`, shown by `status`).
 */
export interface RepositorySettings {
  include: string[];
  exclude: string[];
  /** The size above which a file is not indexed, within the workspace's limit. */
  maxFileSize: number;
  /** Milliseconds one file may take in a parse Worker before it is recorded as timed out. */
  parseTimeoutMs: number;
  /** Extension (with dot) or file name → language override. */
  languages: Record<string, string>;
  /** Declared custom chunkers: never executed, reported as a limitation. */
  chunkers: string[];
  /** What the file asked for beyond the workspace's limits, and what applies instead. */
  capped: string[];
  /** Hash of the settings, part of every file's fingerprint. */
  hash: string;
}

/** The limits the workspace (`sextant.yml`) sets for every repository's own settings. */
export interface WorkspaceLimits {
  /**
   * The largest `max_file_size` a repository may ask for; one that asks none gets the built-in
   * default (or this limit, when it is lower).
   */
  maxFileSize: number;
}

export const DEFAULT_MAX_FILE_SIZE = 1024 * 1024;
/** Milliseconds one file may take before its Worker is replaced and the file recorded as failed. */
export const PARSE_TIMEOUT_MS = 30_000;
export const SETTINGS_PATH = ".code-index/settings.yml";
const SETTINGS_MAX_BYTES = 1024 * 1024;
export const DEFAULT_LIMITS: WorkspaceLimits = { maxFileSize: DEFAULT_MAX_FILE_SIZE };

/**
 * Parses settings text; throws `SyntaxError` with a message naming the bad key. The YAML library
 * is loaded only for a file that has text (~110 ms of a `query` process otherwise).
 */
export async function parseSettings(
  text: string | null,
  limits: WorkspaceLimits = DEFAULT_LIMITS,
): Promise<RepositorySettings> {
  let raw: unknown = {};
  if (text !== null && text.trim() !== "") {
    const { parse: parseYaml } = await import("yaml");
    try {
      raw = parseYaml(text);
    } catch (error) {
      throw new SyntaxError(`Cannot parse settings file: ${(error as Error).message}`);
    }
  }
  if (raw === null || raw === undefined) raw = {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new SyntaxError("Cannot parse settings file: the top level is not a mapping");
  }
  const record = raw as Record<string, unknown>;
  const capped: string[] = [];
  const capAt = (key: string, fallback: number, limit: number, whose: string): number => {
    const asked = positiveInteger(record, key);
    if (asked === undefined) return Math.min(fallback, limit);
    if (asked <= limit) return asked;
    capped.push(`${key} ${asked} in ${SETTINGS_PATH} is above ${whose} ${limit}: ${limit} applies`);
    return limit;
  };
  const settings = {
    include: stringList(record, "include"),
    exclude: stringList(record, "exclude"),
    maxFileSize: capAt(
      "max_file_size",
      DEFAULT_MAX_FILE_SIZE,
      limits.maxFileSize,
      "the workspace's limit",
    ),
    parseTimeoutMs: capAt(
      "parse_timeout_ms",
      PARSE_TIMEOUT_MS,
      PARSE_TIMEOUT_MS,
      "the parse timeout",
    ),
    languages: stringMap(record, "languages"),
    chunkers: chunkerList(record),
  };
  return { ...settings, capped, hash: sha256Hex(JSON.stringify(settings)).slice(0, 16) };
}

/**
 * Reads the settings of the repository at `root` (defaults when the file is
 * absent). A settings file reached through a symlink (`.code-index` or
 * `settings.yml` itself) is refused with a `SyntaxError`: it could read any
 * file the process can, and ignoring it would drop excludes the owner meant.
 */
export async function loadSettings(
  root: string,
  limits: WorkspaceLimits = DEFAULT_LIMITS,
): Promise<RepositorySettings> {
  let text: string | null = null;
  try {
    for (const part of [".code-index", SETTINGS_PATH]) {
      if (Deno.lstatSync(join(root, part)).isSymlink) {
        throw new SyntaxError(
          `Cannot read settings file: '${part}' is a symlink; settings are read only from the repository itself`,
        );
      }
    }
    Deno.lstatSync(join(root, SETTINGS_PATH));
    // Read so that a directory swapped for a symlink meanwhile cannot lead outside the root.
    text = readConfinedText(root, SETTINGS_PATH, { maxBytes: SETTINGS_MAX_BYTES });
    if (text === null) {
      throw new SyntaxError(
        `Cannot read settings file: '${SETTINGS_PATH}' is not a UTF-8 regular file of at most ${SETTINGS_MAX_BYTES} bytes inside the repository`,
      );
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return await parseSettings(text, limits);
}

function stringList(record: Record<string, unknown>, key: string): string[] {
  const value = record[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    throw new SyntaxError(`Cannot parse settings file: key '${key}' is not a list of strings`);
  }
  return value as string[];
}

function positiveInteger(record: Record<string, unknown>, key: string): number | undefined {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
    throw new SyntaxError(`Cannot parse settings file: key '${key}' is not a positive integer`);
  }
  return value;
}

function stringMap(record: Record<string, unknown>, key: string): Record<string, string> {
  const value = record[key];
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new SyntaxError(`Cannot parse settings file: key '${key}' is not a mapping`);
  }
  const result: Record<string, string> = {};
  for (const [name, language] of Object.entries(value as Record<string, unknown>)) {
    if (typeof language !== "string") {
      throw new SyntaxError(
        `Cannot parse settings file: key '${key}.${name}' is not a language name`,
      );
    }
    result[name.startsWith(".") || !name.includes(".") ? name : `.${name}`] = language;
  }
  return result;
}

function chunkerList(record: Record<string, unknown>): string[] {
  const value = record.chunkers;
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map((item) => JSON.stringify(item));
  if (typeof value === "object") return Object.keys(value as object);
  return [String(value)];
}
