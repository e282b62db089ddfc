/**
 * Same-class calls without `this`/`self` (Java, C#, Kotlin, Scala, Ruby, Swift, C++): a bare
 * call inside a method binds the member of the enclosing class, or of a base class, through
 * `callees`; where members are reached only through `self.` (Python) a bare name still does not
 * bind a method of the class.
 */
import assert from "node:assert/strict";
import type { Envelope } from "../src/protocol/types.ts";
import { fixtureRepository, withWorkspace } from "./_helpers.ts";

/** `definition path:line qualified evidence` of each callee, sorted. */
function callees(envelope: Envelope): string[] {
  return envelope.results.map((hit) => {
    const node = hit.node as { path: string; start_line: number; symbol: string };
    return `${node.path}:${node.start_line} ${node.symbol} ${hit.evidence}`;
  }).sort();
}

interface Case {
  language: string;
  files: Record<string, string>;
  /** The method whose callees are asked. */
  symbol: string;
  /** `path:line qualified evidence` of each callee. */
  expected: string[];
}

const lines = (...text: string[]) => text.join("\n") + "\n";

const CASES: Case[] = [
  {
    language: "Java",
    files: {
      "src/app/Base.java": lines(
        "package app;",
        "",
        "public class Base {",
        "  protected int inherited() { return 1; }",
        "}",
      ),
      "src/app/Greeter.java": lines(
        "package app;",
        "",
        "public class Greeter extends Base {",
        "  public int run() {",
        "    return other() + inherited();",
        "  }",
        "",
        "  private int other() { return 2; }",
        "}",
      ),
    },
    symbol: "app.Greeter.run",
    expected: [
      "src/app/Base.java:4 app.Base.inherited module_path",
      "src/app/Greeter.java:8 app.Greeter.other same_file",
    ],
  },
  {
    language: "C#",
    files: {
      "src/Base.cs": lines(
        "namespace App",
        "{",
        "    public class Base",
        "    {",
        "        protected int Inherited() { return 1; }",
        "    }",
        "}",
      ),
      "src/Greeter.cs": lines(
        "namespace App",
        "{",
        "    public class Greeter : Base",
        "    {",
        "        public int Run()",
        "        {",
        "            return Other() + Inherited();",
        "        }",
        "",
        "        private int Other() { return 2; }",
        "    }",
        "}",
      ),
    },
    symbol: "App.Greeter.Run",
    expected: [
      "src/Base.cs:5 App.Base.Inherited module_path",
      "src/Greeter.cs:10 App.Greeter.Other same_file",
    ],
  },
  {
    language: "Kotlin",
    files: {
      "src/app/Base.kt": lines(
        "package app",
        "",
        "open class Base {",
        "    fun inherited(): Int = 1",
        "}",
      ),
      "src/app/Greeter.kt": lines(
        "package app",
        "",
        "class Greeter : Base() {",
        "    fun run(): Int {",
        "        return other() + inherited()",
        "    }",
        "",
        "    private fun other(): Int = 2",
        "}",
      ),
    },
    symbol: "app.Greeter.run",
    expected: [
      "src/app/Base.kt:4 app.Base.inherited module_path",
      "src/app/Greeter.kt:8 app.Greeter.other same_file",
    ],
  },
  {
    language: "Scala",
    files: {
      "src/app/Base.scala": lines(
        "package app",
        "",
        "class Base {",
        "  def inherited(): Int = 1",
        "}",
      ),
      "src/app/Greeter.scala": lines(
        "package app",
        "",
        "class Greeter extends Base {",
        "  def run(): Int = {",
        "    other() + inherited()",
        "  }",
        "",
        "  private def other(): Int = 2",
        "}",
      ),
    },
    symbol: "app.Greeter.run",
    expected: [
      "src/app/Base.scala:4 app.Base.inherited module_path",
      "src/app/Greeter.scala:8 app.Greeter.other same_file",
    ],
  },
  {
    language: "Ruby",
    files: {
      "lib/base.rb": lines(
        "class Base",
        "  def inherited_helper(x)",
        "    x",
        "  end",
        "end",
      ),
      "lib/greeter.rb": lines(
        "require_relative 'base'",
        "",
        "class Greeter < Base",
        "  def run",
        "    other(1) + inherited_helper(2)",
        "  end",
        "",
        "  def other(x)",
        "    x",
        "  end",
        "end",
      ),
    },
    symbol: "Greeter.run",
    expected: [
      "lib/base.rb:2 Base.inherited_helper unique_name",
      "lib/greeter.rb:8 Greeter.other same_file",
    ],
  },
  {
    language: "Swift",
    files: {
      "Sources/Greeter.swift": lines(
        "class Base {",
        "    func inherited() -> Int { return 1 }",
        "}",
        "",
        "class Greeter: Base {",
        "    func run() -> Int {",
        "        let a = other()",
        "        let b = inherited()",
        "        return a + b",
        "    }",
        "",
        "    func other() -> Int { return 2 }",
        "}",
      ),
    },
    symbol: "Greeter.run",
    expected: [
      "Sources/Greeter.swift:12 Greeter.other same_file",
      "Sources/Greeter.swift:2 Base.inherited same_file",
    ],
  },
  {
    language: "C++",
    files: {
      "src/greeter.cpp": lines(
        "class Base {",
        " protected:",
        "  int inherited() { return 1; }",
        "};",
        "",
        "class Greeter : public Base {",
        " public:",
        "  int run() { return other() + inherited(); }",
        "",
        " private:",
        "  int other() { return 2; }",
        "};",
      ),
    },
    symbol: "Greeter::run",
    expected: [
      "src/greeter.cpp:11 Greeter::other same_file",
      "src/greeter.cpp:3 Base::inherited same_file",
    ],
  },
];

for (const entry of CASES) {
  Deno.test(`${entry.language}: a bare call binds a member of the enclosing class or of a base`, async () => {
    const root = fixtureRepository(entry.files);
    await withWorkspace(root, async (_workspace, run) => {
      await run("refresh");
      const answer = await run("callees", { symbol: entry.symbol });
      assert.deepEqual(callees(answer), entry.expected);
    });
  });
}

Deno.test("Python: a bare name does not bind a method of the enclosing class (self. is required)", async () => {
  const root = fixtureRepository({
    "app.py": lines(
      "class Greeter:",
      "    def run(self):",
      "        return other() + self.helper()",
      "",
      "    def other(self):",
      "        return 2",
      "",
      "    def helper(self):",
      "        return 3",
    ),
  });
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const answer = await run("callees", { symbol: "app.Greeter.run" });
    assert.deepEqual(callees(answer), ["app.py:8 app.Greeter.helper same_file"]);
  });
});
