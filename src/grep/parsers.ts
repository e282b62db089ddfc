/** Tree-sitter parsers for structural grep, loaded once per process and reused. */
import { Language, Parser } from "web-tree-sitter";
import { CORE_WASM, readGrammarWasm } from "../indexer/languages.ts";
import type { GrepLanguage } from "./languages.ts";

let core: Promise<void> | null = null;
const parsers = new Map<string, Promise<Parser>>();

/** A parser for one grep language (the wasm is read on first use). */
export function parserFor(language: GrepLanguage): Promise<Parser> {
  let parser = parsers.get(language.language);
  if (!parser) {
    core ??= Parser.init({ wasmBinary: Deno.readFileSync(CORE_WASM) });
    parser = core.then(async () => {
      const loaded = await Language.load(readGrammarWasm(language.grammar));
      const created = new Parser();
      created.setLanguage(loaded);
      return created;
    });
    parsers.set(language.language, parser);
    parser.catch(() => parsers.delete(language.language));
  }
  return parser;
}
