/**
 * The languages structural grep can parse: data only. Each entry names the
 * tree-sitter wasm, the file extensions it covers, the character metavariables
 * are spelled with once the pattern is handed to the parser, and the node kinds
 * whose insides are literal text (never a match root).
 */
export interface GrepLanguage {
  language: string;
  /** File name under `node_modules/tree-sitter-wasms/out`. */
  wasm: string;
  extensions: string[];
  /**
   * `$` where the grammar accepts it in identifiers; otherwise `µ`, which every
   * grammar here reads as an identifier letter (ast-grep's "expando" character).
   */
  metaChar: string;
  /** String and character literal kinds: nothing inside them is code. */
  literalKinds: string[];
  /** Kinds inside a literal that hold code again (f-string and template interpolations). */
  codeInLiteralKinds: string[];
}

export const GREP_LANGUAGES: readonly GrepLanguage[] = [
  {
    language: "python",
    wasm: "tree-sitter-python.wasm",
    extensions: [".py", ".pyi", ".pyw"],
    metaChar: "µ",
    literalKinds: ["string", "concatenated_string"],
    codeInLiteralKinds: ["interpolation"],
  },
  {
    language: "typescript",
    wasm: "tree-sitter-typescript.wasm",
    extensions: [".ts", ".mts", ".cts"],
    metaChar: "$",
    literalKinds: ["string", "template_string", "regex"],
    codeInLiteralKinds: ["template_substitution"],
  },
  {
    language: "tsx",
    wasm: "tree-sitter-tsx.wasm",
    extensions: [".tsx"],
    metaChar: "$",
    literalKinds: ["string", "template_string", "regex"],
    codeInLiteralKinds: ["template_substitution"],
  },
  {
    language: "javascript",
    wasm: "tree-sitter-javascript.wasm",
    extensions: [".js", ".mjs", ".cjs", ".jsx"],
    metaChar: "$",
    literalKinds: ["string", "template_string", "regex"],
    codeInLiteralKinds: ["template_substitution"],
  },
  {
    language: "go",
    wasm: "tree-sitter-go.wasm",
    extensions: [".go"],
    metaChar: "µ",
    literalKinds: ["interpreted_string_literal", "raw_string_literal", "rune_literal"],
    codeInLiteralKinds: [],
  },
  {
    language: "rust",
    wasm: "tree-sitter-rust.wasm",
    extensions: [".rs"],
    metaChar: "µ",
    literalKinds: ["string_literal", "raw_string_literal", "char_literal"],
    codeInLiteralKinds: [],
  },
  {
    language: "java",
    wasm: "tree-sitter-java.wasm",
    extensions: [".java"],
    metaChar: "µ",
    literalKinds: ["string_literal", "character_literal", "text_block"],
    codeInLiteralKinds: ["string_interpolation"],
  },
];

/** Other spellings accepted for `language` (ast-grep's short names among them). */
const ALIASES: Record<string, string> = {
  py: "python",
  ts: "typescript",
  js: "javascript",
  jsx: "javascript",
  golang: "go",
  rs: "rust",
};

/** The grep language of a name or alias, or null. */
export function grepLanguageNamed(name: string): GrepLanguage | null {
  const wanted = ALIASES[name.toLowerCase()] ?? name.toLowerCase();
  return GREP_LANGUAGES.find((entry) => entry.language === wanted) ?? null;
}

/** The grep language of a path by its extension, or null. */
export function grepLanguageForPath(path: string): GrepLanguage | null {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return null;
  const ext = path.slice(dot).toLowerCase();
  return GREP_LANGUAGES.find((entry) => entry.extensions.includes(ext)) ?? null;
}
