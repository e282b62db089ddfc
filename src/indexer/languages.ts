import { basename, extname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Per-language rules that tree-sitter queries cannot express. */
export interface LanguageRules {
  /**
   * The module prefix of qualified names: `python` (dotted path, `__init__` dropped), `path`
   * (the path without extension), `rust` (`crate::a::b` from `src/a/b.rs`), `declared` (the
   * text of the file's `@module` capture, e.g. a Go/Java/Kotlin package; none without one) or
   * `none` (names start at the top-level definition).
   */
  module: "python" | "path" | "rust" | "declared" | "none";
  /** Separator between qualified-name segments. */
  separator: string;
  /**
   * Separator placed before a definition of the given kind instead of `separator` (Ruby
   * `Foo::Bar.baz`: `{"method": "."}`; PHP `App\Kernel::handle`: `{"method": "::"}`).
   */
  kindSeparators?: Record<string, string>;
  /**
   * How visibility is decided: `export_keyword` (TS/JS), `underscore` (Python), `capitalized`
   * (Go) or `modifiers` (the text before the name is matched against `public` / `private`).
   */
  exported: "export_keyword" | "underscore" | "capitalized" | "modifiers";
  /** `modifiers`: a regex over the definition's text before its name that makes it public. */
  public?: string;
  /** `modifiers`: a regex over the definition's text before its name that makes it private. */
  private?: string;
  /** `modifiers`: visibility when neither regex matches (default false). */
  defaultExported?: boolean;
}

/** A language with structure: a folder under `grammars/` with a manifest and query files. */
export interface GrammarLanguage {
  language: string;
  wasm: string;
  extensions: string[];
  filenames?: string[];
  queries: string[];
  rules: LanguageRules;
}

/** A search-only text language from `grammars/text.json`. */
export interface TextLanguage {
  language: string;
  extensions?: string[];
  filenames?: string[];
  chunking: "headings" | "lines";
}

/** The one table that maps files to languages. */
export interface LanguageTable {
  grammars: Map<string, GrammarLanguage>;
  text: Map<string, TextLanguage>;
  byExtension: Map<string, string>;
  byFilename: Map<string, string>;
}

const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const GRAMMARS_DIR = join(PROJECT_ROOT, "grammars");
export const WASM_DIR = join(PROJECT_ROOT, "node_modules", "tree-sitter-wasms", "out");
export const CORE_WASM = join(PROJECT_ROOT, "node_modules", "web-tree-sitter", "tree-sitter.wasm");

let cached: LanguageTable | null = null;

/** Loads the language table from `grammars/` once per process. */
export function loadLanguageTable(): LanguageTable {
  if (cached) return cached;
  const grammars = new Map<string, GrammarLanguage>();
  const text = new Map<string, TextLanguage>();
  const byExtension = new Map<string, string>();
  const byFilename = new Map<string, string>();
  const textTable = JSON.parse(Deno.readTextFileSync(join(GRAMMARS_DIR, "text.json"))) as {
    languages: TextLanguage[];
  };
  for (const entry of textTable.languages) {
    text.set(entry.language, entry);
    for (const ext of entry.extensions ?? []) byExtension.set(ext, entry.language);
    for (const name of entry.filenames ?? []) byFilename.set(name, entry.language);
  }
  const folders = [...Deno.readDirSync(GRAMMARS_DIR)].filter((e) => e.isDirectory)
    .map((e) => e.name).sort();
  for (const folder of folders) {
    const manifest = JSON.parse(
      Deno.readTextFileSync(join(GRAMMARS_DIR, folder, "manifest.json")),
    ) as GrammarLanguage;
    grammars.set(manifest.language, manifest);
    for (const ext of manifest.extensions) byExtension.set(ext, manifest.language);
    for (const name of manifest.filenames ?? []) byFilename.set(name, manifest.language);
  }
  cached = { grammars, text, byExtension, byFilename };
  return cached;
}

/** The language of a repository path, honouring `.code-index/settings.yml` overrides. */
export function languageForPath(
  table: LanguageTable,
  path: string,
  overrides: Record<string, string> = {},
): string | null {
  const name = basename(path);
  const ext = extname(name).toLowerCase();
  return overrides[name] ?? overrides[ext] ?? table.byFilename.get(name) ??
    table.byExtension.get(ext) ?? null;
}

/** Reads the query files of one grammar language, concatenated. */
export function readGrammarQueries(grammar: GrammarLanguage): string {
  return grammar.queries.map((file) =>
    Deno.readTextFileSync(join(GRAMMARS_DIR, grammar.language, file))
  ).join("\n");
}

/** Parser identity of a language: part of every file's fingerprint. */
export function parserIdentity(table: LanguageTable, language: string | null): string {
  const grammar = language ? table.grammars.get(language) : undefined;
  if (grammar) return `tree-sitter:${grammar.wasm}`;
  const textLanguage = language ? table.text.get(language) : undefined;
  return `text:${textLanguage?.chunking ?? "lines"}`;
}
