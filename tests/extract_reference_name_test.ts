/**
 * A reference pattern without `@name` names its own node: `(identifier) @reference.identifier`
 * yields what `(identifier) @name @reference.identifier` did, with one capture (one node object)
 * per match instead of two. The grammars' queries are written that way, predicates included
 * (`(#not-any-of? @reference.identifier "self" "cls")`).
 */
import assert from "node:assert/strict";
import { Language as Grammar, Parser, Query } from "web-tree-sitter";
import {
  type ExtractionGrammar,
  extractStructure,
  parseForExtraction,
} from "../src/indexer/extract.ts";
import {
  CORE_WASM,
  type Language,
  loadLanguageTable,
  readGrammarQueries,
  readGrammarWasm,
} from "../src/indexer/languages.ts";
import type { ParseOutput } from "../src/indexer/parse_types.ts";

const table = loadLanguageTable();
await Parser.init({ wasmBinary: Deno.readFileSync(CORE_WASM) });

async function extract(language: Language, queryText: string, text: string): Promise<ParseOutput> {
  const spec = table.grammars.get(language)!;
  const lang = await Grammar.load(readGrammarWasm(spec));
  const parser = new Parser();
  parser.setLanguage(lang);
  const query = new Query(lang, queryText);
  const grammar: ExtractionGrammar = { query, rules: spec.rules, nodes: spec.nodes };
  const tree = parseForExtraction(parser, text, { rules: spec.rules })!;
  try {
    return extractStructure({
      tree,
      text,
      path: `m.${language === "python" ? "py" : "ts"}`,
      grammar,
    });
  } finally {
    tree.delete();
    query.delete();
  }
}

const PYTHON = `import os

LIMIT = 3

class Box(Base):
    size = LIMIT

    def grow(self, step):
        total = self.size + step
        print(total, os.sep, LIMIT)
        return [step for step in range(total) if step > LIMIT]
`;

Deno.test("a reference pattern without @name names its own node, as @name on that node did", async () => {
  const definitions = `
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
`;
  const withName = await extract(
    "python",
    definitions + `
(argument_list (identifier) @name @reference.identifier)
((attribute object: (identifier) @name @reference.identifier) (#not-any-of? @name "self" "cls"))
(class_definition superclasses: (argument_list (identifier) @name @reference.inherits))
`,
    PYTHON,
  );
  const own = await extract(
    "python",
    definitions + `
(argument_list (identifier) @reference.identifier)
((attribute object: (identifier) @reference.identifier) (#not-any-of? @reference.identifier "self" "cls"))
(class_definition superclasses: (argument_list (identifier) @reference.inherits))
`,
    PYTHON,
  );
  assert.deepEqual(own.relations, withName.relations);
  const targets = own.relations.map((row) => `${row.kind} ${row.target} ${row.start_line}`);
  // `self` is left out by the predicate on the reference's own capture; `os` is kept.
  assert.deepEqual(targets, [
    "inherits Base 5",
    "references total 10",
    "references os 10",
    "references LIMIT 10",
    "references total 11",
  ]);
});

Deno.test("the Python grammar's identifier reads carry their own text, and self/cls reads are left out", async () => {
  const spec = table.grammars.get("python")!;
  const output = await extract("python", readGrammarQueries(spec), PYTHON);
  const reads = output.relations.filter((row) => row.kind === "references").map((row) =>
    `${row.target}@${row.start_line}:${row.start_col}-${row.end_col}`
  );
  for (const expected of ["LIMIT@6:12-17", "step@9:29-33", "total@10:15-20", "os@10:22-24"]) {
    assert.ok(reads.includes(expected), `${expected} in ${reads.join(" ")}`);
  }
  assert.ok(!output.relations.some((row) => row.target === "self"), "self is never a reference");
});
