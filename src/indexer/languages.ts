import { basename, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { decodeUleb128, encodeUleb128 } from "../engine/leb128.ts";
import {
  checkGrammarManifest,
  checkTextTable,
  type GrammarLanguage,
  isLanguage,
  type Language,
  LANGUAGES,
  type TextLanguage,
} from "./manifest.ts";

export {
  type ExtractionNodes,
  type GrammarLanguage,
  type GrepRules,
  isLanguage,
  type Language,
  type LanguageRules,
  LANGUAGES,
  type TextLanguage,
} from "./manifest.ts";

/** The one table that maps files to languages. */
export interface LanguageTable {
  grammars: Map<Language, GrammarLanguage>;
  text: Map<string, TextLanguage>;
  byExtension: Map<string, string>;
  byFilename: Map<string, string>;
  /** Alias (`py`, `golang`) → language. */
  byAlias: Map<string, Language>;
}

const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const GRAMMARS_DIR = join(PROJECT_ROOT, "grammars");
/** Where grammar packages are installed: a manifest's `wasm` is a path under it. */
export const NODE_MODULES = join(PROJECT_ROOT, "node_modules");
export const CORE_WASM = join(PROJECT_ROOT, "node_modules", "web-tree-sitter", "tree-sitter.wasm");

let cached: LanguageTable | null = null;

/**
 * Loads the language table from `grammars/` once per process: every `<language>/manifest.json`
 * (folders starting with `_` hold shared query files) and `text.json`, each checked against its
 * shape. Throws `SyntaxError` naming the file and key when one is wrong, when a manifest names a
 * language outside `LANGUAGES` or sits in another language's folder, when a language has no
 * manifest, when a query file is missing, or when two grammars claim one extension or name.
 * `dir` is for tests; only the default table is cached.
 */
export function loadLanguageTable(dir: string = GRAMMARS_DIR): LanguageTable {
  if (cached && dir === GRAMMARS_DIR) return cached;
  const grammars = new Map<Language, GrammarLanguage>();
  const text = new Map<string, TextLanguage>();
  const byExtension = new Map<string, string>();
  const byFilename = new Map<string, string>();
  const byAlias = new Map<string, Language>();
  const textFile = join(dir, "text.json");
  for (const entry of checkTextTable(readJson(textFile), shortName(dir, textFile))) {
    text.set(entry.language, entry);
    for (const ext of entry.extensions ?? []) byExtension.set(ext, entry.language);
    for (const name of entry.filenames ?? []) byFilename.set(name, entry.language);
  }
  // A grammar folder claiming the same extension or file name as a text language wins.
  const claimedBy = new Map<string, Language>();
  const folders = [...Deno.readDirSync(dir)]
    .filter((entry) => entry.isDirectory && !entry.name.startsWith("_"))
    .map((entry) => entry.name).sort();
  for (const folder of folders) {
    const file = join(dir, folder, "manifest.json");
    const name = shortName(dir, file);
    const manifest = checkGrammarManifest(readJson(file), name);
    const fail = (problem: string): never => {
      throw new SyntaxError(`Cannot load grammar manifest ${name}: ${problem}`);
    };
    if (manifest.language !== folder) {
      fail(`key 'language' is '${manifest.language}' but the folder is '${folder}'`);
    }
    for (const query of manifest.queries) {
      if (!isFile(join(dir, folder, query))) {
        fail(`key 'queries' names ${query}, which is not a file`);
      }
    }
    if (!/^(?:@[\w.-]+\/)?[\w.-]+\/(?:[\w.-]+\/)*[\w.-]+\.wasm$/.test(manifest.wasm)) {
      fail(
        `key 'wasm' is '${manifest.wasm}', not a path '<npm package>/<file>.wasm' under node_modules`,
      );
    }
    if (manifest.wasm.split("/").includes("..") || !isFile(wasmPath(manifest))) {
      fail(`key 'wasm' names ${manifest.wasm}, which is not a file under node_modules`);
    }
    const claims = [
      ...manifest.extensions.map((ext) => ({ key: "extensions", value: ext, table: byExtension })),
      ...(manifest.filenames ?? []).map((file) => ({
        key: "filenames",
        value: file,
        table: byFilename,
      })),
    ];
    for (const claim of claims) {
      const other = claimedBy.get(`${claim.key}\0${claim.value}`);
      if (other) fail(`key '${claim.key}' claims '${claim.value}', already claimed by ${other}`);
      claimedBy.set(`${claim.key}\0${claim.value}`, manifest.language);
      claim.table.set(claim.value, manifest.language);
    }
    for (const alias of manifest.aliases ?? []) {
      const other = byAlias.get(alias);
      if (other || isLanguage(alias)) {
        fail(`key 'aliases' names '${alias}', already the name of ${other ?? alias}`);
      }
      byAlias.set(alias, manifest.language);
    }
    grammars.set(manifest.language, manifest);
  }
  for (const language of LANGUAGES) {
    if (!grammars.has(language)) {
      throw new SyntaxError(
        `Cannot load grammars: language '${language}' has no manifest (${
          shortName(dir, join(dir, language, "manifest.json"))
        })`,
      );
    }
  }
  const table = { grammars, text, byExtension, byFilename, byAlias };
  if (dir === GRAMMARS_DIR) cached = table;
  return table;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = Deno.readTextFileSync(file);
  } catch (error) {
    throw new SyntaxError(`Cannot load ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(`Cannot parse ${file}: ${(error as Error).message}`);
  }
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** `grammars/x/manifest.json`: a path as a person finds it in the project. */
function shortName(dir: string, file: string): string {
  return join(basename(dir), file.slice(dir.length + 1));
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

/**
 * The structured language of a path by its file name or extension (no per-repository
 * overrides), or null for text languages and unknown files.
 */
export function languageOfPath(path: string): Language | null {
  const language = languageForPath(loadLanguageTable(), path);
  return isLanguage(language) ? language : null;
}

/** The structured language a name or alias (`py`, `TS`, `golang`) stands for, or null. */
export function languageNamed(name: string): Language | null {
  const lower = name.toLowerCase();
  return isLanguage(lower) ? lower : loadLanguageTable().byAlias.get(lower) ?? null;
}

/** The grammar of a structured language. */
export function grammarOf(language: Language): GrammarLanguage {
  return loadLanguageTable().grammars.get(language)!;
}

/** Reads the query files of one grammar language, concatenated. */
export function readGrammarQueries(grammar: GrammarLanguage): string {
  return grammar.queries.map((file) =>
    Deno.readTextFileSync(join(GRAMMARS_DIR, grammar.language, file))
  ).join("\n");
}

/** Parser identity of a language: part of every file's fingerprint. */
export function parserIdentity(table: LanguageTable, language: string | null): string {
  const grammar = isLanguage(language) ? table.grammars.get(language) : undefined;
  if (grammar) return `tree-sitter:${grammar.wasm}`;
  const textLanguage = language ? table.text.get(language) : undefined;
  return `text:${textLanguage?.chunking ?? "lines"}`;
}

/** The file of a grammar's wasm: its manifest's `wasm`, under `node_modules`. */
export function wasmPath(grammar: Pick<GrammarLanguage, "wasm">): string {
  return join(NODE_MODULES, grammar.wasm);
}

/** The wasm bytes of a grammar, with its `wasmImportAliases` applied. */
export function readGrammarWasm(grammar: GrammarLanguage): Uint8Array {
  const bytes = Deno.readFileSync(wasmPath(grammar));
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
  const readLeb = (at: number) => decodeUleb128(bytes, at);
  const leb = encodeUleb128;
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
