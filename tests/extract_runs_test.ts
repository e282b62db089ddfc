/**
 * The query runs over a file in runs of whole top-level statements (so a run's matches die
 * before the next is made): what extraction yields must not depend on where the runs are cut.
 * Each source is extracted with the whole file as one run and with a run per top-level
 * statement, and the two outputs compared field by field.
 */
import assert from "node:assert/strict";
import { Language as Grammar, Parser, Query, type QueryOptions } from "web-tree-sitter";
import {
  type ExtractionGrammar,
  extractStructure,
  LIMITS,
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

async function grammarOf(
  language: Language,
  extraQuery = "",
): Promise<{ parser: Parser; grammar: ExtractionGrammar }> {
  const spec = table.grammars.get(language)!;
  const lang = await Grammar.load(readGrammarWasm(spec));
  const parser = new Parser();
  parser.setLanguage(lang);
  const query = new Query(lang, readGrammarQueries(spec) + extraQuery);
  return { parser, grammar: { query, rules: spec.rules, nodes: spec.nodes } };
}

/** Extraction with runs of `run` characters, and how the query was called. */
function extractWithRuns(
  loaded: { parser: Parser; grammar: ExtractionGrammar },
  text: string,
  path: string,
  run: number,
): { output: ParseOutput; ranged: number; whole: number } {
  const query = loaded.grammar.query;
  const calls = { ranged: 0, whole: 0 };
  const matches = query.matches;
  query.matches = function (node, options: QueryOptions = {}) {
    if (options.startPosition) calls.ranged++;
    else calls.whole++;
    return matches.call(this, node, options);
  };
  const saved = LIMITS.queryRun;
  LIMITS.queryRun = run;
  const tree = parseForExtraction(loaded.parser, text, { rules: loaded.grammar.rules })!;
  try {
    const output = extractStructure({ tree, text, path, grammar: loaded.grammar });
    return { output, ...calls };
  } finally {
    tree.delete();
    LIMITS.queryRun = saved;
    query.matches = matches;
  }
}

function pythonSource(): string {
  const parts = ["import os\nfrom typing import List as L, Optional\n"];
  for (let i = 0; i < 12; i++) {
    parts.push(`
# Block ${i}.
LIMIT_${i} = ${i}
value_${i} = os.path.join("a", str(LIMIT_${i}))

if value_${i}:
    ALIAS_${i} = value_${i}


@decorator(${i})
class Shape${i}(Base, metaclass=Meta):
    """Shape number ${i}."""
    sides: int = ${i}

    def area(self, scale: float = 1.0) -> float:
        """Area."""
        total = self.sides * scale + helper_${i}(value_${i})
        return total if total > LIMIT_${i} else -total

def helper_${i}(x: Optional[int]) -> L[int]:
    global value_${i}
    return [y for y in range(x) if y % 2]

last_${i} = helper_${i}(1)

def tail_${i}():
    return last_${i}
`);
  }
  return parts.join("");
}

function goSource(): string {
  const parts = [`package shapes\n\nimport (\n\t"fmt"\n\tstr "strings"\n)\n`];
  for (let i = 0; i < 10; i++) {
    parts.push(`
// Shape${i} is a shape.
type Shape${i} struct {
\tBase
\tsides int
}

const Max${i} = ${i}

var count${i}, other${i} = 1, 2

// Area computes.
func (s *Shape${i}) Area(scale float64) float64 {
\tfmt.Println(str.ToUpper("x"), s.sides)
\treturn float64(s.sides) * scale
}
`);
  }
  return parts.join("");
}

function rustSource(): string {
  const parts = ["use std::collections::HashMap;\nuse crate::a::{b, c as d};\n"];
  for (let i = 0; i < 10; i++) {
    parts.push(`
/// Shape ${i}.
#[derive(Debug)]
pub struct Shape${i} {
    sides: u32,
}

impl Shape${i} {
    /// Area.
    pub fn area(&self, scale: f64) -> f64 {
        let map: HashMap<u32, u32> = HashMap::new();
        helper_${i}(self.sides) as f64 * scale + map.len() as f64
    }
}

fn helper_${i}(x: u32) -> u32 {
    x + ${i}
}
`);
  }
  return parts.join("");
}

const SOURCES: { language: Language; path: string; text: () => string }[] = [
  { language: "python", path: "pkg/shapes.py", text: pythonSource },
  { language: "go", path: "shapes/shapes.go", text: goSource },
  { language: "rust", path: "src/shapes.rs", text: rustSource },
  {
    language: "typescript",
    path: "src/indexer/extract.ts",
    text: () => Deno.readTextFileSync(new URL("../src/indexer/extract.ts", import.meta.url)),
  },
  {
    language: "typescript",
    path: "src/indexer/extract_matches.ts",
    text: () =>
      Deno.readTextFileSync(new URL("../src/indexer/extract_matches.ts", import.meta.url)),
  },
];

Deno.test("extraction: a run of the query per top-level statement yields what one run yields", async () => {
  for (const source of SOURCES) {
    const loaded = await grammarOf(source.language);
    const text = source.text();
    const whole = extractWithRuns(loaded, text, source.path, 1e9);
    const runs = extractWithRuns(loaded, text, source.path, 1);
    assert.equal(whole.ranged, 0, source.path);
    assert.ok(runs.ranged > 5, `${source.path}: ${runs.ranged} runs`);
    assert.equal(runs.whole, 0, `${source.path}: no run may fall back to the whole file`);
    assert.ok(whole.output.symbols.length > 10 && whole.output.relations.length > 20, source.path);
    assert.deepEqual(runs.output, whole.output, source.path);
  }
});

Deno.test("extraction: a pattern relating two top-level statements makes the file one run", async () => {
  // A definition whose name is captured in the statement after it crosses runs.
  const crossing = `
(module (expression_statement (assignment left: (identifier) @definition.marker))
  . (function_definition name: (identifier) @name))`;
  const loaded = await grammarOf("python", crossing);
  const text = pythonSource();
  const whole = extractWithRuns(loaded, text, "pkg/shapes.py", 1e9);
  const runs = extractWithRuns(loaded, text, "pkg/shapes.py", 1);
  assert.ok(runs.ranged > 0 && runs.whole === 1, `${runs.ranged} runs, ${runs.whole} whole`);
  assert.ok(whole.output.symbols.some((symbol) => symbol.kind === "marker"));
  assert.deepEqual(runs.output, whole.output);
});
