import { parse as parseYaml } from "yaml";
import { join } from "node:path";
import { sha256Hex } from "../engine/hash.ts";

/**
 * `.code-index/settings.yml` of one repository: include/exclude globs, the size above which a
 * file is not indexed, per-extension language overrides and declared (never run) chunkers.
 */
export interface RepositorySettings {
  include: string[];
  exclude: string[];
  maxFileSize: number;
  /** Extension (with dot) or file name → language override. */
  languages: Record<string, string>;
  /** Declared custom chunkers: never executed, reported as a limitation. */
  chunkers: string[];
  /** Hash of the settings, part of every file's fingerprint. */
  hash: string;
}

export const DEFAULT_MAX_FILE_SIZE = 1024 * 1024;
export const SETTINGS_PATH = ".code-index/settings.yml";

/** Parses settings text; throws `SyntaxError` with a message naming the bad key. */
export function parseSettings(text: string | null): RepositorySettings {
  let raw: unknown = {};
  if (text !== null && text.trim() !== "") {
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
  const settings = {
    include: stringList(record, "include"),
    exclude: stringList(record, "exclude"),
    maxFileSize: positiveInteger(record, "max_file_size") ?? DEFAULT_MAX_FILE_SIZE,
    languages: stringMap(record, "languages"),
    chunkers: chunkerList(record),
  };
  return { ...settings, hash: sha256Hex(JSON.stringify(settings)).slice(0, 16) };
}

/**
 * Reads the settings of the repository at `root` (defaults when the file is
 * absent). A settings file reached through a symlink (`.code-index` or
 * `settings.yml` itself) is refused with a `SyntaxError`: it could read any
 * file the process can, and ignoring it would drop excludes the owner meant.
 */
export function loadSettings(root: string): RepositorySettings {
  let text: string | null = null;
  try {
    for (const part of [".code-index", SETTINGS_PATH]) {
      if (Deno.lstatSync(join(root, part)).isSymlink) {
        throw new SyntaxError(
          `Cannot read settings file: '${part}' is a symlink; settings are read only from the repository itself`,
        );
      }
    }
    text = Deno.readTextFileSync(join(root, SETTINGS_PATH));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return parseSettings(text);
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
