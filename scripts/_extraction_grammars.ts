/**
 * Parsers and extraction grammars loaded in this thread, one per language, as a parse Worker
 * holds them (for scripts that run extraction without the pool).
 */
import { Language as Grammar, Parser, Query } from "web-tree-sitter";
import type { ExtractionGrammar } from "../src/indexer/extract.ts";
import {
  CORE_WASM,
  type Language,
  type LanguageTable,
  readGrammarQueries,
  readGrammarWasm,
} from "../src/indexer/languages.ts";

export type GrammarLoader = (
  language: Language,
) => Promise<{ parser: Parser; grammar: ExtractionGrammar }>;

/** A loader of `table`'s grammars, each loaded on first use and kept. */
export async function extractionGrammars(table: LanguageTable): Promise<GrammarLoader> {
  await Parser.init({ wasmBinary: Deno.readFileSync(CORE_WASM) });
  const loaded = new Map<Language, { parser: Parser; grammar: ExtractionGrammar }>();
  return async (language) => {
    let entry = loaded.get(language);
    if (!entry) {
      const grammar = table.grammars.get(language)!;
      const lang = await Grammar.load(readGrammarWasm(grammar));
      const parser = new Parser();
      parser.setLanguage(lang);
      const query = new Query(lang, readGrammarQueries(grammar));
      entry = { parser, grammar: { query, rules: grammar.rules, nodes: grammar.nodes } };
      loaded.set(language, entry);
    }
    return entry;
  };
}
