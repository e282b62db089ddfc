/**
 * The resolver's reads give what one plain read gives, however they are made: several target
 * names read name by name, aliases taken from every relation targeting a name, a definition
 * found in its file's rows, a function's lines cut from the text, a file's definitions read
 * without docs; and an ambiguous use's candidates keep their exact reasons.
 */
import nodeAssert from "node:assert/strict";
import { runAction } from "../src/actions/dispatch.ts";
import { dynamicSites } from "../src/resolver/dynamic.ts";
import { ScopeStore } from "../src/resolver/store.ts";
import type { RelationRecord } from "../src/resolver/types.ts";
import type { StoredRelation, TargetReader } from "../src/store/reader.ts";
import { RequestScope } from "../src/workspace/scope.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { fixtureRepository, tempCache } from "./_helpers.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  nodeAssert.deepStrictEqual(actual, expected, message);

const FILES: Record<string, string> = {
  "lib.py": "def run():\n    return 1\n\n\ndef stop():\n    return 2\n",
  // `run` and `stop` written at the same places, aliases, and a qualified use.
  "a.py": "import lib\nfrom lib import run as go, stop\n\n\ndef use():\n" +
    "    go(); stop(); run()\n    lib.run()\n    return stop() + run()\n",
  "b.py": "from lib import run\nfrom lib import stop as halt\n\n\nclass B:\n" +
    "    def m(self):\n        run()\n        return halt()\n",
  // CRLF lines, an empty line, no newline at the end.
  "c.py": "def f():\r\n    x = 1\r\n\r\n    return x",
};

/** Source order, as the store keeps rows (its comparison, restated). */
function bySource(a: RelationRecord, b: RelationRecord): number {
  const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return compare(a.path, b.path) || a.startLine - b.startLine || a.startCol - b.startCol ||
    a.endLine - b.endLine || a.endCol - b.endCol || compare(a.kind, b.kind) ||
    compare(a.target, b.target);
}

/** A fixture's store for one request, a way to read its target directly, and its name. */
interface Fixture {
  store: ScopeStore;
  /** A second request's store (its own memos; the generation's reads are shared). */
  another: () => ScopeStore;
  read: <T>(f: (reader: TargetReader) => T) => T;
  repo: string;
}

async function withStore(fn: (fixture: Fixture) => void): Promise<void> {
  const root = fixtureRepository(FILES);
  const workspace = await Workspace.open({ directory: root, cacheDirectory: tempCache() });
  try {
    const repository = workspace.repositories[0];
    await workspace.refresh(repository);
    const another = () => new ScopeStore(RequestScope.build(workspace, {}));
    fn({
      store: another(),
      another,
      read: (f) => workspace.withReader(repository, f).value!,
      repo: repository.name,
    });
  } finally {
    workspace.close();
  }
}

const records = (repo: string, rows: StoredRelation[]): RelationRecord[] =>
  rows.map((row) => ({ repo, ...row })).sort(bySource);

Deno.test("several target names read name by name are one read of them all, rows_read included", async () => {
  await withStore(({ store, read, repo }) => {
    for (const names of [["run", "stop", "go"], ["stop", "run"], ["lib.run", "run"], ["run"]]) {
      const before = store.rowsRead;
      const rows = store.relationsTargeting(repo, names);
      const expected = records(repo, read((reader) => reader.relationsTargeting(names)));
      assertEquals(rows, expected, names.join(","));
      assertEquals(store.rowsRead - before, expected.length);
      // Asked again (kept for the generation): the same rows, counted again.
      assertEquals(store.relationsTargeting(repo, names), expected);
    }
    assertEquals(store.relationsTargeting(repo, ["stop", "run"]).length, 10);
  });
});

Deno.test("aliases taken from the rows targeting a name are the aliases read alone", async () => {
  await withStore(({ store, read, repo }) => {
    for (const name of ["run", "stop", "absent"]) {
      const expected = records(repo, read((reader) => reader.aliasesOf(name)));
      const before = store.rowsRead;
      assertEquals(store.aliasesOf(repo, name, true), expected, name);
      assertEquals(store.rowsRead - before, expected.length);
    }
    assertEquals(store.aliasesOf(repo, "run", true).map((r) => r.alias), ["go"]);
    assertEquals(store.aliasesOf(repo, "stop", true).map((r) => r.alias), ["halt"]);
  });
});

Deno.test("a definition found in its file's rows is the one a read by id finds, counted as one row", async () => {
  await withStore(({ store, another, read, repo }) => {
    const method = read((reader) => reader.symbolsNamed("m"))[0];
    const byId = another();
    const plain = byId.symbolById(repo, method.id);
    assertEquals(byId.rowsRead, 1);
    assertEquals(store.symbolById(repo, method.id, "b.py"), plain);
    assertEquals(store.rowsRead, 1);
    // A wrong file: read by id, as without one.
    const other = another();
    assertEquals(other.symbolById(repo, method.id, "a.py"), plain);
    assertEquals(other.rowsRead, 1);
    // A file's definitions without their docs: the stored ones.
    const lean = read((reader) => reader.definitionsOfFile("b.py"));
    const full = read((reader) => reader.symbolsInFile("b.py"));
    assertEquals(
      lean.sort((a, b) => a.startLine - b.startLine || a.startCol - b.startCol),
      full.map(({ doc: _doc, ...rest }) => rest),
    );
  });
});

Deno.test("a function's lines cut from its file's text are the file's lines sliced", async () => {
  await withStore(({ store, repo }) => {
    for (const path of ["c.py", "a.py"]) {
      const lines = store.fileLines(repo, path)!;
      for (const [start, end] of [[1, 1], [1, 4], [2, 3], [3, 3], [4, 9], [8, 9], [12, 20]]) {
        assertEquals(
          store.linesOf(repo, path, start, end),
          lines.slice(start - 1, end),
          `${path} ${start}-${end}`,
        );
      }
      assertEquals(store.snippet(repo, path, 1, 99, 3), lines.slice(0, 3).join("\n"));
    }
    assertEquals(store.linesOf(repo, "c.py", 2, 3), ["    x = 1\r", "\r"]);
    assertEquals(store.linesOf(repo, "missing.py", 1, 2), null);
  });
});

Deno.test("uses whose receiver's type is not evident list every candidate with its exact reason", async () => {
  const root = fixtureRepository({
    "a.py": "class A:\n    def run(self):\n        return 1\n",
    "b.py": "class B:\n    def run(self):\n        return 2\n",
    "c.py": "def go(obj, other):\n    obj.run()\n    obj.run()\n    return other.run()\n",
  });
  const workspace = await Workspace.open({ directory: root, cacheDirectory: tempCache() });
  try {
    await workspace.refresh(workspace.repositories[0]);
    const repo = workspace.repositories[0].name;
    const answer = await runAction(workspace, "callers", { symbol: "A.run" });
    // The three uses could mean the same two definitions: one candidate, its first use the hit.
    const lists = (answer.candidates ?? []).map((c) => [c.start_line, c.candidates]);
    const reason = (path: string, receiver: string) =>
      `a method named 'run' in ${repo}:${path}; the type of '${receiver}' is not statically evident`;
    const listed = (receiver: string) => [
      {
        repo,
        path: "a.py",
        start_line: 2,
        symbol: "a.A.run",
        kind: "method",
        why: reason("a.py", receiver),
      },
      {
        repo,
        path: "b.py",
        start_line: 2,
        symbol: "b.B.run",
        kind: "method",
        why: reason("b.py", receiver),
      },
    ];
    assertEquals(lists, [[2, listed("obj")]]);
    const [candidate] = answer.candidates!;
    assertEquals(candidate.why, "2 definitions of 'obj.run' in scope and no evidence chooses one");
    assertEquals(candidate.uses, 3);
    assertEquals(
      (candidate.other_sites as { start_line: number; symbol: string }[]).map((s) =>
        `${s.start_line} ${s.symbol}`
      ),
      ["3 c.go", "4 c.go"],
    );
    assertEquals((answer.data as Record<string, unknown>).ambiguous_uses, 3);
  } finally {
    workspace.close();
  }
});

Deno.test("dynamic sites are found line by line even where the whole text matches otherwise", () => {
  const site = (text: string) =>
    dynamicSites({ repo: "r", path: "m.py", family: "python", text, max: 3 }).map((s) =>
      `${s.line}:${s.what}`
    );
  // The whole text matches `getattr\s*(` across the line break; no line does.
  assertEquals(site("x = getattr\n(o, n)\n"), []);
  // Only in a comment: skipped, as every comment line is.
  assertEquals(site("# eval(x)\ny = 1\n"), []);
  assertEquals(site("a = 1\nb.c = 2\nexec(s)\n# getattr(o)\nsetattr(o, n, v)\n"), [
    "2:monkey-patching (attribute of another object assigned)",
    "3:dynamic code (exec)",
    "5:reflection (setattr)",
  ]);
  assertEquals(site("x_pb2 = 1\r\nhasattr(o, 'n')\r\n"), ["2:reflection (hasattr)"]);
  // A method named like the builtin, defined or called on an object, is not the builtin.
  assertEquals(
    site("class F:\n    def eval(cls, x):\n        return x.eval() + self.getattr (1)\n"),
    [],
  );
  assertEquals(site("y = eval(s)\nz = obj.exec(s)\n"), ["1:dynamic code (eval)"]);
  assertEquals(site("import builtins\nbuiltins.exec(s)\n"), ["2:dynamic code (exec)"]);
  const ecmascript = (text: string) =>
    dynamicSites({ repo: "r", path: "m.ts", family: "ecmascript", text, max: 3 }).map((s) =>
      `${s.line}:${s.what}`
    );
  assertEquals(
    ecmascript(
      "function eval(x) {}\nvm.eval(code);\nconst f = eval(code);\nglobalThis.eval(code);\n",
    ),
    [
      "3:dynamic code (eval / new Function)",
      "4:dynamic code (eval / new Function)",
    ],
  );
});
