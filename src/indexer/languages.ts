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
  /**
   * Imported functions of the wasm renamed before loading, for grammars built against libc
   * functions web-tree-sitter does not export (tree-sitter-bash's `isalpha` → `iswalpha`).
   */
  wasmImportAliases?: Record<string, string>;
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

/** The wasm bytes of a grammar, with its `wasmImportAliases` applied. */
export function readGrammarWasm(grammar: GrammarLanguage): Uint8Array {
  const bytes = Deno.readFileSync(join(WASM_DIR, grammar.wasm));
  return grammar.wasmImportAliases ? renameWasmImports(bytes, grammar.wasmImportAliases) : bytes;
}

/**
 * A copy of a wasm module whose imported names are renamed per `aliases`; only the import
 * section (id 2) is rewritten, every other section is copied as is.
 */
export function renameWasmImports(
  bytes: Uint8Array,
  aliases: Record<string, string>,
): Uint8Array {
  const readLeb = (at: number): [value: number, next: number] => {
    let value = 0;
    let shift = 0;
    let pos = at;
    for (;;) {
      const byte = bytes[pos++];
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return [value >>> 0, pos];
      shift += 7;
    }
  };
  const leb = (value: number): number[] => {
    const out: number[] = [];
    do {
      let byte = value & 0x7f;
      value >>>= 7;
      if (value !== 0) byte |= 0x80;
      out.push(byte);
    } while (value !== 0);
    return out;
  };
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const parts: Uint8Array[] = [bytes.subarray(0, 8)];
  let pos = 8;
  while (pos < bytes.length) {
    const id = bytes[pos];
    const [size, bodyStart] = readLeb(pos + 1);
    const bodyEnd = bodyStart + size;
    if (id !== 2) {
      parts.push(bytes.subarray(pos, bodyEnd));
      pos = bodyEnd;
      continue;
    }
    // Import section: count, then (module name, field name, kind, description) entries.
    const body: number[] = [];
    let [count, at] = readLeb(bodyStart);
    body.push(...leb(count));
    while (count-- > 0) {
      for (let part = 0; part < 2; part++) {
        const [length, start] = readLeb(at);
        let name = decoder.decode(bytes.subarray(start, start + length));
        if (part === 1 && Object.hasOwn(aliases, name)) name = aliases[name];
        const encoded = encoder.encode(name);
        body.push(...leb(encoded.length), ...encoded);
        at = start + length;
      }
      const kind = bytes[at];
      let end = at + 1;
      if (kind === 0) end = readLeb(end)[1]; // function: type index
      else if (kind === 1) { // table: element type, limits
        const flags = bytes[end + 1];
        end = readLeb(end + 2)[1];
        if (flags & 1) end = readLeb(end)[1];
      } else if (kind === 2) { // memory: limits
        const flags = bytes[end];
        end = readLeb(end + 1)[1];
        if (flags & 1) end = readLeb(end)[1];
      } else if (kind === 3) end += 2; // global: type, mutability
      else throw new RangeError(`Cannot rename wasm imports: unknown import kind ${kind}`);
      for (let i = at; i < end; i++) body.push(bytes[i]);
      at = end;
    }
    parts.push(new Uint8Array([2, ...leb(body.length), ...body]));
    pos = bodyEnd;
  }
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
