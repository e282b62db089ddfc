/**
 * The languages structural grep can parse: the structured languages whose manifest has a
 * `grep` section (metavariable character, literal node kinds), read from the registry.
 */
import {
  type GrammarLanguage,
  type Language,
  languageNamed,
  loadLanguageTable,
} from "../indexer/languages.ts";

/** A language grep supports: its grammar and what grep needs beyond it. */
export interface GrepLanguage {
  language: Language;
  /** The grammar wasm, a path under `node_modules`. */
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
  /** Text parsed before a pattern (PHP's `<?php `); its nodes are not part of the pattern. */
  patternPrefix?: string;
  /** The registry's grammar (wasm import aliases, rules). */
  grammar: GrammarLanguage;
}

export const GREP_LANGUAGES: readonly GrepLanguage[] = [...loadLanguageTable().grammars.values()]
  .flatMap((grammar) =>
    grammar.grep
      ? [{
        language: grammar.language,
        wasm: grammar.wasm,
        extensions: grammar.extensions,
        ...grammar.grep,
        grammar,
      }]
      : []
  );

/** The grep language of a name or alias (ast-grep's short names among them), or null. */
export function grepLanguageNamed(name: string): GrepLanguage | null {
  const wanted = languageNamed(name);
  return GREP_LANGUAGES.find((entry) => entry.language === wanted) ?? null;
}

/** The grep language of a path (or glob) by its extension, or null. */
export function grepLanguageForPath(path: string): GrepLanguage | null {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return null;
  const ext = path.slice(dot).toLowerCase();
  return GREP_LANGUAGES.find((entry) => entry.extensions.includes(ext)) ?? null;
}
