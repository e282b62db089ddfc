/**
 * `super().name` found in no base in scope goes to the base outside the scope (imported from
 * outside it, a builtin, a star import) or to Python's `object`: never a guess among unrelated
 * same-named methods of the repository. A base in scope that defines it still answers exactly,
 * and a mixin with no base still falls back to a guess by name.
 */
import nodeAssert from "node:assert/strict";
import { runAction } from "../src/actions/dispatch.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { fixtureRepository, tempCache } from "./_helpers.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  nodeAssert.deepStrictEqual(actual, expected, message);
const assert: (value: unknown, message?: string) => asserts value = nodeAssert.ok;

const FILES: Record<string, string> = {
  // Two unrelated classes whose `setUp` and `__init__` a guess by name would offer.
  "one.py":
    "class One:\n    def setUp(self):\n        pass\n\n    def __init__(self):\n        pass\n",
  "two.py":
    "class Two:\n    def setUp(self):\n        pass\n\n    def __init__(self):\n        pass\n",
  // A base imported from outside the scope, a builtin base, no base at all.
  "lib_case.py": "from unittest import TestCase\n\n\nclass Case(TestCase):\n" +
    "    def setUp(self):\n        super().setUp()\n",
  "builtin.py": "class Bag(set):\n    def __init__(self):\n        super().__init__()\n",
  "plain.py": "class Plain:\n    def __init__(self):\n        super().__init__()\n",
  // Through a base in scope that does not define it, to that base's own base outside.
  "deep.py": "from unittest import TestCase\n\n\nclass Middle(TestCase):\n    pass\n\n\n" +
    "class Leaf(Middle):\n    def setUp(self):\n        super().setUp()\n",
  // A base in scope that defines it: exact, as before.
  "inscope.py": "from one import One\n\n\nclass Sub(One):\n    def setUp(self):\n" +
    "        super().setUp()\n",
  // A mixin with no base calling a method `object` lacks: cooperative, still a guess.
  "mixin.py": "class Mixin:\n    def setUp(self):\n        super().setUp()\n",
  // Not certain, so still a guess: a base written through an alias, a base the index did not
  // record (a call), an ambiguous first base before an outside one.
  "alias.py": "from one import One\nAlias = One\n\n\nclass ViaAlias(Alias):\n" +
    "    def setUp(self):\n        super().setUp()\n",
  "meta.py": "from six import with_metaclass\nfrom one import One\n\n\n" +
    "class Meta(with_metaclass(type, One)):\n    def setUp(self):\n        super().setUp()\n",
  "twice_a.py": "class Twice:\n    pass\n",
  "twice_b.py": "class Twice:\n    pass\n",
  "first.py": "from unittest import TestCase\n\n\nclass First(Twice, TestCase):\n" +
    "    def setUp(self):\n        super().setUp()\n",
  // Rust's `super::` is the parent module, even inside a trait's impl.
  "lib.rs": "pub fn helper() -> i32 {\n    1\n}\n\npub mod inner {\n    pub struct Foo;\n\n" +
    "    impl Default for Foo {\n        fn default() -> Self {\n            super::helper();\n" +
    "            Foo\n        }\n    }\n}\n",
};

Deno.test("super() with no base in scope defining the member leaves the scope instead of guessing", async () => {
  const workspace = await Workspace.open({
    directory: fixtureRepository(FILES),
    cacheDirectory: tempCache(),
  });
  try {
    await workspace.refresh(workspace.repositories[0]);
    const at = (path: string, line: number) =>
      runAction(workspace, "definition", { path, line, column: 17 });

    for (
      const [path, line, base] of [
        ["lib_case.py", 6, "TestCase"],
        ["builtin.py", 3, "set"],
        ["deep.py", 10, "TestCase"],
      ] as const
    ) {
      const answer = await at(path, line);
      assertEquals(answer.results, [], path);
      assertEquals(answer.candidates, undefined, path);
      assert(
        answer.limitations.some((l) =>
          l.includes("no base in scope defines it") && l.includes(`its base '${base}'`)
        ),
        `${path}: ${answer.limitations.join("\n")}`,
      );
    }
    const outside = (l: string) => l.includes("no base in scope defines it");
    for (
      const [path, line] of [
        ["plain.py", 3],
        ["mixin.py", 3],
        ["alias.py", 7],
        ["meta.py", 7],
        ["first.py", 6],
      ] as const
    ) {
      const answer = await at(path, line);
      assert(!answer.limitations.some(outside), `${path}: ${answer.limitations.join("\n")}`);
      assert((answer.candidates ?? []).length > 0, `${path}: still a guess by name`);
    }
    const rust = await runAction(workspace, "definition", { path: "lib.rs", line: 10, column: 20 });
    assert(!rust.limitations.some(outside), rust.limitations.join("\n"));
    // (What `super::helper` names is module-path resolution's business: never a trait's base.)
    assert(!rust.limitations.some((l) => l.includes("'Default'")), rust.limitations.join("\n"));
    const exact = await at("inscope.py", 6);
    assertEquals(exact.results.map((h) => [h.symbol, h.evidence]), [["one.One.setUp", "import"]]);

    // Callers of an unrelated `setUp` list none of the uses that leave the scope, not even as
    // candidates; the uncertain ones are still candidates.
    const callers = await runAction(workspace, "callers", { symbol: "two.Two.setUp" });
    assertEquals(callers.results, []);
    assertEquals(
      (callers.candidates ?? []).flatMap((c) => [
        `${c.path}:${c.start_line}`,
        ...((c.other_sites as { path: string; start_line: number }[] | undefined) ?? []).map(
          (s) => `${s.path}:${s.start_line}`,
        ),
      ]),
      ["alias.py:7", "first.py:6", "meta.py:7", "mixin.py:3"],
    );
  } finally {
    workspace.close();
  }
});
