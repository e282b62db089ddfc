/**
 * Pure helpers that carry a server's locations onto Sextant's terms: file URIs to
 * repository-relative paths, 0-based UTF-16 positions to 1-based lines and columns, the name
 * written at a range, and LSP symbol kinds to Sextant's kind words.
 */
import { fileURLToPath } from "node:url";

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

/**
 * The repository-relative path of a `file:` URI when it lies under one of `roots` (the root as
 * configured and its real path), else null. Paths are returned with `/` separators.
 */
export function repositoryRelativePath(uri: string, roots: string[]): string | null {
  if (!uri.startsWith("file:")) return null;
  let full: string;
  try {
    full = fileURLToPath(uri);
  } catch {
    return null;
  }
  for (const root of roots) {
    const prefix = root.endsWith("/") ? root : `${root}/`;
    if (full.startsWith(prefix)) {
      const relative = full.slice(prefix.length);
      if (relative.split("/").some((part) => part === ".." || part === "")) return null;
      return relative;
    }
  }
  return null;
}

/** The identifier written at a range's start in `text` (the whole word around it), or null. */
export function identifierAt(text: string, position: LspPosition): string | null {
  const line = lineAt(text, position.line + 1);
  if (line === null) return null;
  const word = /[\p{L}\p{N}_$]/u;
  let start = Math.min(position.character, line.length);
  let end = start;
  while (start > 0 && word.test(line[start - 1])) start--;
  while (end < line.length && word.test(line[end])) end++;
  return end > start ? line.slice(start, end) : null;
}

/** Line `n` (1-based) of a text, or null past its end. */
export function lineAt(text: string, n: number): string | null {
  let start = 0;
  for (let line = 1; line < n; line++) {
    const next = text.indexOf("\n", start);
    if (next < 0) return null;
    start = next + 1;
  }
  const end = text.indexOf("\n", start);
  const line = text.slice(start, end < 0 ? text.length : end);
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** Lines `start..end` (1-based, inclusive) of a text, at most `maxLines` of them. */
export function snippetLines(text: string, start: number, end: number, maxLines = 12): string {
  const lines = text.split("\n");
  const last = Math.min(end, start + maxLines - 1, lines.length);
  return lines.slice(Math.max(0, start - 1), last).join("\n");
}

/** Sextant's kind word for an LSP `SymbolKind` number. */
export function symbolKindName(kind: number | undefined): string {
  return SYMBOL_KINDS[(kind ?? 0) - 1] ?? "symbol";
}

const SYMBOL_KINDS = [
  "file",
  "module",
  "namespace",
  "package",
  "class",
  "method",
  "property",
  "field",
  "constructor",
  "enum",
  "interface",
  "function",
  "variable",
  "constant",
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "key",
  "null",
  "enum_member",
  "struct",
  "event",
  "operator",
  "type_parameter",
];
