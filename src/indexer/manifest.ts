/**
 * The shape of `grammars/<language>/manifest.json` and `grammars/text.json`, and the check that
 * a parsed manifest has it. Pure: a parsed JSON value in, a typed manifest out, or a
 * `SyntaxError` naming the key ("key 'rules.module' is not one of python, path, …").
 */

/** The seventeen languages with structure: one `grammars/<language>/` folder each. */
export const LANGUAGES = [
  "bash",
  "c",
  "c_sharp",
  "cpp",
  "go",
  "java",
  "javascript",
  "kotlin",
  "lua",
  "php",
  "python",
  "ruby",
  "rust",
  "scala",
  "swift",
  "tsx",
  "typescript",
] as const;

/** A language with structure (a grammar, query files and rules). */
export type Language = (typeof LANGUAGES)[number];

/** True when a name is one of the structured languages. */
export function isLanguage(name: string | null | undefined): name is Language {
  return (LANGUAGES as readonly string[]).includes(name ?? "");
}

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
   * How visibility is decided: `export_keyword` (TS/JS: inside a node of `nodes.exports`),
   * `underscore` (Python), `capitalized` (Go) or `modifiers` (the text before the name is
   * matched against `public` / `private`).
   */
  exported: "export_keyword" | "underscore" | "capitalized" | "modifiers";
  /** `modifiers`: a regex over the definition's text before its name that makes it public. */
  public?: string;
  /** `modifiers`: a regex over the definition's text before its name that makes it private. */
  private?: string;
  /** `modifiers`: visibility when neither regex matches (default false). */
  defaultExported?: boolean;
  /**
   * Line breaks the grammar misreads, made explicit when a parse has errors
   * (`parseForExtraction`): `member_lines` (TypeScript type members ending at a line break before
   * `<` or `(`), `constructor_lines` (a Kotlin primary constructor on the line after its class).
   */
  repairs?: ("member_lines" | "constructor_lines")[];
}

/**
 * Grammar node types the extractor reads around a definition (each list holds only types the
 * grammar has; an absent list is empty).
 */
export interface ExtractionNodes {
  /** Comments: leading ones (no blank line between) are a definition's doc and chunk start. */
  comments: string[];
  /** Other siblings before a definition that belong to it: decorators, Rust attributes. */
  attachments: string[];
  /**
   * Children at the start of a definition node that its declaration line does not start with
   * (Java `@Override`, C# `[Serializable]`, comments); they stay in its range for chunks.
   */
  annotations: string[];
  /** A child holding modifiers: the declaration starts at its first non-annotation child. */
  modifiers: string[];
  /** Parents that wrap a definition and start its leading text (`export`, `@decorator`). */
  wrappers: string[];
  /** `export_keyword` visibility: a definition inside one of these (3 levels up) is exported. */
  exports: string[];
  /**
   * Definitions that own the rest of their file though their node ends at its own line (C#
   * `namespace App;`): what follows is nested in them.
   */
  fileScopes: string[];
}

/** What structural grep needs of a language beyond its grammar. */
export interface GrepRules {
  /**
   * The character metavariables are spelled with once the pattern is handed to the parser: `$`
   * where the grammar accepts it in identifiers; otherwise `µ`, which every grammar here reads
   * as an identifier letter (ast-grep's "expando" character).
   */
  metaChar: string;
  /** String and character literal kinds: nothing inside them is code. */
  literalKinds: string[];
  /** Kinds inside a literal that hold code again (f-string and template interpolations). */
  codeInLiteralKinds: string[];
  /**
   * Text the grammar needs before code (PHP's `<?php `, without which a pattern parses as
   * HTML text): prepended to a pattern before it is parsed, its nodes never part of the pattern.
   */
  patternPrefix?: string;
}

/** A language with structure: a folder under `grammars/` with a manifest and query files. */
export interface GrammarLanguage {
  language: Language;
  /**
   * The grammar wasm as `<npm package>/<path>.wasm` under `node_modules` (the package is a
   * dependency in `deno.json`, e.g. `tree-sitter-python/tree-sitter-python.wasm`).
   */
  wasm: string;
  extensions: string[];
  filenames?: string[];
  /** Other names users give the language (`py`, `ts`, `golang`): accepted wherever one is named. */
  aliases?: string[];
  /** Query files, relative to the language's folder, concatenated in order. */
  queries: string[];
  rules: LanguageRules;
  nodes: ExtractionNodes;
  /** Present for the languages structural grep supports. */
  grep?: GrepRules;
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

type Shape =
  | { type: "string"; oneOf?: readonly string[]; regex?: boolean }
  | { type: "boolean" }
  | { type: "strings"; oneOf?: readonly string[] }
  | { type: "map" }
  | { type: "object"; keys: Record<string, Field> }
  | { type: "list"; of: Shape };
type Field = Shape & { optional?: boolean };

const STRINGS: Field = { type: "strings", optional: true };

const RULES: Shape = {
  type: "object",
  keys: {
    module: { type: "string", oneOf: ["python", "path", "rust", "declared", "none"] },
    separator: { type: "string" },
    kindSeparators: { type: "map", optional: true },
    exported: {
      type: "string",
      oneOf: ["export_keyword", "underscore", "capitalized", "modifiers"],
    },
    public: { type: "string", regex: true, optional: true },
    private: { type: "string", regex: true, optional: true },
    defaultExported: { type: "boolean", optional: true },
    repairs: { type: "strings", optional: true, oneOf: ["member_lines", "constructor_lines"] },
  },
};

const GRAMMAR: Shape = {
  type: "object",
  keys: {
    language: { type: "string", oneOf: LANGUAGES },
    wasm: { type: "string" },
    extensions: { type: "strings" },
    filenames: STRINGS,
    aliases: STRINGS,
    queries: { type: "strings" },
    rules: RULES,
    nodes: {
      type: "object",
      optional: true,
      keys: {
        comments: STRINGS,
        attachments: STRINGS,
        annotations: STRINGS,
        modifiers: STRINGS,
        wrappers: STRINGS,
        exports: STRINGS,
        fileScopes: STRINGS,
      },
    },
    grep: {
      type: "object",
      optional: true,
      keys: {
        metaChar: { type: "string" },
        literalKinds: { type: "strings" },
        codeInLiteralKinds: { type: "strings" },
        patternPrefix: { type: "string", optional: true },
      },
    },
    wasmImportAliases: { type: "map", optional: true },
    comment: { type: "string", optional: true },
  },
};

const TEXT_TABLE: Shape = {
  type: "object",
  keys: {
    comment: { type: "string", optional: true },
    languages: {
      type: "list",
      of: {
        type: "object",
        keys: {
          language: { type: "string" },
          extensions: STRINGS,
          filenames: STRINGS,
          chunking: { type: "string", oneOf: ["headings", "lines"] },
          comment: { type: "string", optional: true },
        },
      },
    },
  },
};

/** Why a value does not have a shape (naming the key), or null when it has it. */
function mismatch(value: unknown, shape: Shape, key: string): string | null {
  const where = key === "" ? "the top level" : `key '${key}'`;
  switch (shape.type) {
    case "string":
      if (typeof value !== "string") return `${where} is not a string`;
      if (shape.oneOf && !shape.oneOf.includes(value)) {
        return `${where} is not one of ${shape.oneOf.join(", ")}`;
      }
      if (shape.regex) {
        try {
          new RegExp(value);
        } catch {
          return `${where} is not a valid regular expression`;
        }
      }
      return null;
    case "boolean":
      return typeof value === "boolean" ? null : `${where} is not true or false`;
    case "strings": {
      if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
        return `${where} is not a list of strings`;
      }
      const unknown = shape.oneOf ? value.find((item) => !shape.oneOf!.includes(item)) : undefined;
      return unknown === undefined
        ? null
        : `${where} names '${unknown}', not one of ${shape.oneOf!.join(", ")}`;
    }
    case "map":
      return isRecord(value) && Object.values(value).every((item) => typeof item === "string")
        ? null
        : `${where} is not a mapping of strings to strings`;
    case "list":
      if (!Array.isArray(value)) return `${where} is not a list`;
      for (const [index, item] of value.entries()) {
        const problem = mismatch(item, shape.of, `${key}[${index}]`);
        if (problem) return problem;
      }
      return null;
    case "object": {
      if (!isRecord(value)) return `${where} is not a mapping`;
      const prefix = key === "" ? "" : `${key}.`;
      for (const name of Object.keys(value)) {
        if (!Object.hasOwn(shape.keys, name)) {
          return `key '${prefix}${name}' is not one of ${Object.keys(shape.keys).join(", ")}`;
        }
      }
      for (const [name, field] of Object.entries(shape.keys)) {
        if (value[name] === undefined) {
          if (field.optional) continue;
          return `key '${prefix}${name}' is missing`;
        }
        const problem = mismatch(value[name], field, `${prefix}${name}`);
        if (problem) return problem;
      }
      return null;
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A grammar manifest checked against its shape; `file` names it in the error
 * (`Cannot load grammar manifest grammars/x/manifest.json: key 'rules.module' is …`).
 */
export function checkGrammarManifest(value: unknown, file: string): GrammarLanguage {
  const problem = mismatch(value, GRAMMAR, "");
  if (problem) throw new SyntaxError(`Cannot load grammar manifest ${file}: ${problem}`);
  const manifest = value as Omit<GrammarLanguage, "nodes"> & { nodes?: Partial<ExtractionNodes> };
  if (manifest.rules.exported === "export_keyword" && !manifest.nodes?.exports?.length) {
    throw new SyntaxError(
      `Cannot load grammar manifest ${file}: key 'nodes.exports' is missing (rules.exported is export_keyword)`,
    );
  }
  const nodes = manifest.nodes ?? {};
  return {
    ...manifest,
    nodes: {
      comments: nodes.comments ?? [],
      attachments: nodes.attachments ?? [],
      annotations: nodes.annotations ?? [],
      modifiers: nodes.modifiers ?? [],
      wrappers: nodes.wrappers ?? [],
      exports: nodes.exports ?? [],
      fileScopes: nodes.fileScopes ?? [],
    },
  };
}

/** `grammars/text.json` checked against its shape. */
export function checkTextTable(value: unknown, file: string): TextLanguage[] {
  const problem = mismatch(value, TEXT_TABLE, "");
  if (problem) throw new SyntaxError(`Cannot load text language table ${file}: ${problem}`);
  return (value as { languages: TextLanguage[] }).languages;
}
