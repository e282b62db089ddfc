/** Unit tests for the resolver's pure parts: receiver types, diff hunks, diagrams, dynamic sites. */
import assert from "node:assert/strict";
import { attributeType, localBinding, receiverType } from "../src/resolver/receiver.ts";
import { parseUnifiedDiff } from "../src/resolver/diff.ts";
import { dynamicSites } from "../src/resolver/dynamic.ts";
import { mermaidDiagram } from "../src/resolver/mermaid.ts";
import { editDistance, namePosition } from "../src/resolver/subject.ts";
import type { RelationRecord, SymbolRecord } from "../src/resolver/types.ts";
import { typeParameterOffset } from "../src/resolver/resolve.ts";
import { FAMILIES, type Family } from "../src/resolver/families.ts";

Deno.test("receiver types that are statically evident", () => {
  const type = (family: Family, text: string, variable = "x", signature: string | null = null) => {
    const style = FAMILIES[family].receivers;
    return style ? receiverType({ style, variable, signature, text })?.name ?? null : null;
  };
  assert.equal(type("ecmascript", "const x = new Client();\nx.get()"), "Client");
  assert.equal(type("ecmascript", "let x: Store = make();"), "Store");
  assert.equal(type("ecmascript", "", "x", "function f(x: api.Client)"), "api.Client");
  assert.equal(type("ecmascript", "const x = make();"), null);
  assert.equal(type("python", "x = Store()\nx.get(1)"), "Store");
  assert.equal(type("python", "", "x", "def f(x: Store)"), "Store");
  assert.equal(type("python", "x = Store()\nx = Cache()\n"), "Cache");
  assert.equal(type("go", "x := &Server{}\n"), "Server");
  assert.equal(type("go", "var x strs.Builder\n"), "strs.Builder");
  assert.equal(type("go", "", "s", "func (s *Server) Handle()"), "Server");
  assert.equal(type("python", "y = Store()"), null);
  assert.equal(type("ruby", "x = Store.new"), null);
  assert.equal(
    attributeType({
      style: "python",
      attribute: "store",
      classText: "class H:\n  def __init__(self):\n    self.store = Store()\n",
      fieldSignature: null,
    })?.name,
    "Store",
  );
  assert.equal(
    attributeType({
      style: "ecmascript",
      attribute: "db",
      classText: "",
      fieldSignature: "private db: Database",
    })
      ?.name,
    "Database",
  );
  // A definitely assigned field (`router!: Router<...>`) is typed too.
  assert.equal(
    attributeType({
      style: "ecmascript",
      attribute: "router",
      classText: "",
      fieldSignature: "router!: Router<[H, RouterRoute]>",
    })?.name,
    "Router",
  );
});

Deno.test("unified diff hunks become new-side line ranges", () => {
  const diff = [
    "diff --git a/src/a.ts b/src/a.ts",
    "--- a/src/a.ts",
    "+++ b/src/a.ts",
    "@@ -3,2 +3,4 @@ x",
    "@@ -10 +12,0 @@",
    "--- /dev/null",
    "+++ b/new.ts",
    "@@ -0,0 +1,5 @@",
    "--- a/gone.ts",
    "+++ /dev/null",
    "@@ -1,7 +0,0 @@",
  ].join("\n");
  assert.deepEqual(parseUnifiedDiff(diff), [
    {
      path: "src/a.ts",
      ranges: [{ start: 3, end: 6 }, { start: 12, end: 13 }],
      whole: false,
      deleted: false,
    },
    { path: "new.ts", ranges: [{ start: 1, end: 5 }], whole: true, deleted: false },
    { path: "gone.ts", ranges: [{ start: 1, end: 7 }], whole: false, deleted: true },
  ]);
});

Deno.test("dynamic sites are named with their line", () => {
  const sites = dynamicSites({
    repo: "r",
    path: "m.py",
    family: "python",
    text:
      "import os\n\ndef f(o, n):\n    return getattr(o, n)()\n# eval(x) in a comment\nos.path = None\n",
    max: 5,
  });
  assert.deepEqual(sites.map((s) => `${s.line}:${s.what}`), [
    "4:reflection (getattr)",
    "6:monkey-patching (attribute of another object assigned)",
  ]);
  const generated = dynamicSites({
    repo: "r",
    path: "x_pb2.py",
    family: "python",
    text: "",
    max: 5,
  });
  assert.equal(generated[0].what, "generated code");
});

const symbol = (name: string, line: number): SymbolRecord => ({
  repo: "r",
  path: "a.ts",
  language: "typescript",
  id: name,
  name,
  qualified: `a.${name}`,
  kind: "function",
  startLine: line,
  startCol: 1,
  endLine: line,
  endCol: 1,
  signature: null,
  parentId: null,
  exported: true,
});

const relation = (fields: Partial<RelationRecord>): RelationRecord => ({
  repo: "r",
  path: "a.ts",
  language: "typescript",
  kind: "calls",
  fromSymbol: null,
  target: "f",
  receiver: null,
  module: null,
  alias: null,
  startLine: 1,
  startCol: 1,
  endLine: 1,
  endCol: 1,
  ...fields,
});

Deno.test("mermaid diagrams draw exact edges solid and guessed ones dotted", () => {
  const a = symbol("a", 1);
  const b = symbol("b<T>", 2);
  const edge = { from: b, to: a, relation: relation({}), evidence: "same_file" as const };
  const guess = { from: a, to: b, relation: relation({}), evidence: "unique_name" as const };
  const text = mermaidDiagram([a], [
    { node: b, edge, depth: 1, direction: "in", path: [edge], sites: [] },
    { node: b, edge: guess, depth: 1, direction: "out", path: [guess], sites: [] },
  ]);
  assert.equal(
    text,
    [
      "graph LR",
      '  n0["a.a<br/>r:a.ts:1"]',
      "  style n0 stroke-width:3px",
      '  n1["a.b#lt;T#gt;<br/>r:a.ts:2"]',
      "  n1 -->|calls| n0",
      "  n0 -.->|calls| n1",
    ].join("\n"),
  );
});

Deno.test("the written name of a use is found after its receiver", () => {
  const text = "const v = api.client.get(1); get();\n";
  assert.deepEqual(
    namePosition(text, relation({ target: "get", receiver: "api.client", startCol: 11 })),
    { line: 1, column: 22, length: 3 },
  );
  assert.deepEqual(namePosition(text, relation({ target: "get", startCol: 30 })), {
    line: 1,
    column: 30,
    length: 3,
  });
  assert.equal(editDistance("formatDat", "formatDate"), 1);
});

Deno.test("parameters and local variables shadow every other definition", () => {
  const at = (family: Family, text: string, name: string) => {
    const style = FAMILIES[family].locals!;
    const lines = text.split("\n");
    const found = localBinding({ style, lines, name, useLineOffset: lines.length - 1 });
    return found ? `${found.line}:${found.column}:${found.parameter ? "param" : "local"}` : null;
  };
  const python =
    "def f(a, b: int = 1,\n      *rest):\n    x = a\n    y, z = g()\n    call(q=1)\n    for k in y:\n        x = k\n    return x";
  assert.equal(at("python", python, "a"), "0:7:param");
  assert.equal(at("python", python, "rest"), "1:8:param");
  assert.equal(at("python", python, "x"), "6:9:local");
  assert.equal(at("python", python, "z"), "3:8:local");
  assert.equal(at("python", python, "k"), "5:9:local");
  assert.equal(at("python", python, "q"), null);
  assert.equal(at("python", python, "g"), null);
  const ts =
    "function f(a: number, { b }: O) {\n  const c = a;\n  let [d, e] = pair();\n  return c + d;\n}";
  assert.equal(at("ecmascript", ts, "a"), "0:12:param");
  assert.equal(at("ecmascript", ts, "c"), "1:9:local");
  assert.equal(at("ecmascript", ts, "e"), "2:11:local");
  assert.equal(at("ecmascript", ts, "pair"), null);
});

Deno.test("keyword arguments and the use's own line are not bindings", () => {
  const lines =
    "def f(data):\n    x = 1\n    call(\n        data=data,\n        x=x,\n    )\n    data = data or {}\n    use(data)"
      .split("\n");
  const at = (name: string, useLineOffset: number) =>
    localBinding({ style: "python", lines, name, useLineOffset })?.line ?? null;
  assert.equal(at("x", 4), 1);
  assert.equal(at("data", 3), 0);
  assert.equal(at("data", 6), 0);
  assert.equal(at("data", 7), 6);
});

Deno.test("generic type parameters are found in their declaration's header", () => {
  const header =
    "export interface Handler<\n  E extends Env = Env,\n  P extends string = '/',\n> {";
  assert.equal(typeParameterOffset(header, "Handler", "P"), header.indexOf("P extends"));
  assert.equal(typeParameterOffset(header, "Handler", "Env"), null);
  assert.equal(typeParameterOffset("const f = <T,>(x: T) => x", "f", "T"), 11);
  assert.equal(typeParameterOffset("function g(x: number)", "g", "x"), null);
});
