/**
 * The reader over the packed target answers as the plain tables did: symbol
 * search by index lookups in the same order as the former full-scan query,
 * relations by target through the postings, statement ranges as a parse finds them.
 */
import assert from "node:assert/strict";
import { Language, Parser } from "web-tree-sitter";
import { statementUnits } from "../src/indexer/statement_units.ts";
import { CORE_WASM, grammarOf, readGrammarWasm } from "../src/indexer/languages.ts";
import { contentOrder, type SymbolMatch, type TargetReader } from "../src/store/reader.ts";
import { fixtureRepository, openTarget, withWorkspace } from "./_helpers.ts";
import { seededRandom } from "./_random.ts";

const FILES = {
  "pkg/__init__.py": "",
  "pkg/config.py": `
class Config:
    def load(self, path):
        return parse_config(path)

    def loader(self):
        return Config()


def parse_config(path):
    return open(path).read()


def _private_helper():
    return parse_config("x")
`,
  "src/app.ts": `
import { parseConfig as pc } from "./config";
export class Loader {
  load(path: string) { return pc(path); }
}
export function load(path: string) { return new Loader().load(path); }
export const LOAD_LIMIT = 3;
`,
  "src/config.ts": `export function parseConfig(path: string) { return path; }\n`,
  // A definition whose name holds a separator (`Outer.Inner`), found through a partial index.
  "src/ns.ts": `namespace Outer.Inner {\n  export function settle() { return 1; }\n}\n`,
  "lib/foo.rb": `
module Foo
  class Bar
    def baz; 1; end
    def self.load; 2; end
  end
end
`,
  "src/Kernel.php": `<?php
namespace App;
class Kernel {
  public function handle() { return 1; }
  public function load() { return 2; }
}
`,
  "src/lib.rs": `
pub mod a {
    pub fn load() -> u8 { 1 }
    pub struct Loader;
    impl Loader { pub fn load(&self) -> u8 { 2 } }
}
`,
};

/** The symbol search of the plain-table target (a scan of every symbol), as an oracle. */
function oracle(db: ReturnType<typeof openTarget>, query: string, kind?: string): SymbolMatch[] {
  const escaped = query.replace(/[\\%_]/g, (c) => `\\${c}`);
  const bind: Record<string, string> = { q: query, escaped };
  if (kind) bind.kind = kind;
  return db.prepare(
    `SELECT s.id, s.name, s.qualified_name, s.kind, s.start_line, s.end_line, s.signature, s.doc,
            s.exported, f.path, f.language,
            CASE WHEN s.name = :q OR s.qualified_name = :q THEN 0
                 WHEN s.name = :q COLLATE NOCASE THEN 1
                 WHEN s.qualified_name LIKE '%.' || :escaped ESCAPE '\\'
                   OR s.qualified_name LIKE '%::' || :escaped ESCAPE '\\' THEN 2
                 ELSE 3 END AS tier
       FROM code_symbols s JOIN source_files f ON f.id = s.file_id
      WHERE (s.name = :q COLLATE NOCASE
             OR s.name LIKE :escaped || '%' ESCAPE '\\'
             OR s.qualified_name = :q
             OR s.qualified_name LIKE '%.' || :escaped ESCAPE '\\'
             OR s.qualified_name LIKE '%::' || :escaped ESCAPE '\\') ${
      kind ? "AND s.kind = :kind" : ""
    }
      ORDER BY tier, s.exported DESC, length(s.qualified_name)`,
  ).all(bind).map((row) => ({
    id: row.id as string,
    name: row.name as string,
    qualified: row.qualified_name as string,
    kind: row.kind as string,
    startLine: Number(row.start_line),
    endLine: Number(row.end_line),
    signature: row.signature as string | null,
    doc: row.doc as string | null,
    exported: Number(row.exported) === 1,
    path: row.path as string,
    language: row.language as string | null,
    tier: Number(row.tier),
  }));
}

/** Matches grouped by their rank (tier, exported, qualified length), each group as a set. */
function byRank(matches: Iterable<SymbolMatch>): string[] {
  const groups = new Map<string, string[]>();
  for (const match of matches) {
    const rank = `${match.tier}:${match.exported}:${match.qualified.length}`;
    groups.set(rank, [...(groups.get(rank) ?? []), `${match.qualified}@${match.path}`]);
  }
  return [...groups].map(([rank, ids]) => `${rank} ${ids.sort().join(" ")}`);
}

Deno.test("symbol search through the name index answers as the full scan did, rank by rank", async () => {
  const root = fixtureRepository(FILES);
  await withWorkspace(root, async (workspace) => {
    const repo = workspace.repositories[0];
    await workspace.refresh(repo);
    const db = openTarget(workspace);
    try {
      const queries = [
        "load",
        "LOAD",
        "Load",
        "lo",
        "Config.load",
        "config.load",
        "pkg.config.Config",
        "Bar.baz",
        "Foo::Bar",
        "Kernel::handle",
        "App\\Kernel",
        "Inner",
        "Outer.Inner",
        "outer.inner",
        "r.Inner",
        "a::load",
        "parse_config",
        "parse",
        "_",
        "%",
        "nothing",
      ];
      for (const query of queries) {
        for (const kind of [undefined, "method", "function"]) {
          const ours = workspace.withReader(repo, (reader) => [...reader.symbolSearch(query, kind)])
            .value!;
          assert.deepEqual(byRank(ours), byRank(oracle(db, query, kind)), `${query} ${kind}`);
        }
      }
    } finally {
      db.close();
    }
  });
});

Deno.test("relations by target come from the postings; the ranges grep stores are the parse's", async () => {
  const root = fixtureRepository(FILES);
  await withWorkspace(root, async (workspace) => {
    const repo = workspace.repositories[0];
    await workspace.refresh(repo);
    const read = <T>(fn: (reader: TargetReader) => T) => workspace.withReader(repo, fn).value!;
    const calls = read((reader) => reader.relationsTargeting(["parse_config", "pc"]));
    assert.deepEqual(
      calls.map((row) => `${row.target} ${row.kind} ${row.path}:${row.startLine}`),
      [
        "parse_config calls pkg/config.py:4",
        "parse_config calls pkg/config.py:15",
        "pc calls src/app.ts:4",
      ],
    );
    const all = read((reader) => reader.relationsOfKinds());
    assert.deepEqual(
      read((reader) => reader.relationsTargeting(["load"])),
      all.filter((row) => row.target === "load").sort((a, b) =>
        a.kind.localeCompare(b.kind) || a.path.localeCompare(b.path) ||
        a.startLine - b.startLine || a.startCol - b.startCol
      ),
    );
    assert.deepEqual(
      read((reader) => reader.aliasesOf("parseConfig")).map((row) => row.alias),
      ["pc"],
    );
    const counts = read((reader) => reader.counts());
    assert.equal(counts.relations, all.length);

    await Parser.init({ wasmBinary: Deno.readFileSync(CORE_WASM) });
    const parser = new Parser();
    parser.setLanguage(await Language.load(readGrammarWasm(grammarOf("typescript"))));
    const text = read((reader) => reader.fileText("src/app.ts"))!;
    const tree = parser.parse(text)!;
    assert.deepEqual(
      read((reader) => reader.statementUnits("src/app.ts")),
      statementUnits(tree.rootNode, text),
    );
    tree.delete();
  });
});

Deno.test("a file kept from a repaired parse stores no statement ranges; grep parses it whole", async () => {
  // The grammar misreads call signatures on their own lines (hono's `Context`); extraction keeps
  // the parse of a copy with the line breaks made explicit, which grep never sees.
  const handler = `interface Get<E extends Env> {
  <Key extends keyof E['Variables']>(key: Key): E['Variables'][Key]
  <Key extends keyof ContextVariableMap>(key: Key): ContextVariableMap[Key]
}

export class Context {
  newResponse = (data: string) => new Response(data)

  json(object: unknown): Response {
    return this.newResponse(JSON.stringify(object))
  }
}
`;
  const root = fixtureRepository({
    "src/handler.ts": handler,
    "src/plain.ts": "export const a = 1;\n",
  });
  await withWorkspace(root, async (workspace, run) => {
    const repo = workspace.repositories[0];
    await workspace.refresh(repo);
    await Parser.init({ wasmBinary: Deno.readFileSync(CORE_WASM) });
    const parser = new Parser();
    parser.setLanguage(await Language.load(readGrammarWasm(grammarOf("typescript"))));
    const tree = parser.parse(handler)!;
    assert.ok(tree.rootNode.hasError, "the plain parse has errors (the repair applies)");
    tree.delete();
    const ranges = (path: string) =>
      workspace.withReader(repo, (reader) => reader.statementUnits(path)).value;
    assert.equal(ranges("src/handler.ts"), null);
    assert.ok(ranges("src/plain.ts"), "a clean file keeps its ranges");
    const answer = await run("grep", {
      pattern: "this.newResponse($A)",
      language: "typescript",
    });
    assert.deepEqual(answer.results.map((hit) => `${hit.path}:${hit.start_line}`), [
      "src/handler.ts:10",
    ]);
  });
});

Deno.test("chunks in content order: by their file's rank, start byte, then id; rows of unranked files left out; huge ranks sort the same", () => {
  const next = seededRandom(11);
  // [id, file_id, start_line, end_line, start_byte], read by id.
  const rows: unknown[][] = Array.from({ length: 400 }, (_, id) => [
    id + 1,
    Math.floor(next() * 7),
    0,
    0,
    Math.floor(next() * 20) * (next() < 0.1 ? 2 ** 31 : 1),
  ]);
  // File 6 is not ranked (no such file); the others in a shuffled order.
  const rank = new Map([[3, 0], [0, 1], [5, 2], [1, 3], [4, 4], [2, 5]]);
  const expected = rows.map((_, at) => at).filter((at) => rank.has(rows[at][1] as number))
    .sort((a, b) =>
      rank.get(rows[a][1] as number)! - rank.get(rows[b][1] as number)! ||
      (rows[a][4] as number) - (rows[b][4] as number) || a - b
    );
  assert.ok(expected.length < rows.length);
  assert.deepEqual(Array.from(contentOrder(rows, rank)), expected);
  // Past 2^20 files the one-key sort would lose precision: the comparison sort answers the same.
  const huge = new Map(rank);
  for (let id = 100; huge.size <= 2 ** 20; id++) huge.set(id, huge.size);
  assert.deepEqual(Array.from(contentOrder(rows, huge)), expected);
});
