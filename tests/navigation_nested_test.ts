/**
 * A definition nested in a function's body is resolved only from its own file, so its uses
 * are looked for there alone; what other files can reach — a top-level definition, a method
 * of a class nested in a function, a JavaScript object's method — keeps every file's uses.
 */
import nodeAssert from "node:assert/strict";
import { runAction } from "../src/actions/dispatch.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { fixtureRepository, tempCache } from "./_helpers.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  nodeAssert.deepStrictEqual(actual, expected, message);

const FILES: Record<string, string> = {
  "nest.py": "def outer():\n" +
    "    def helper(x):\n        return x\n\n" +
    "    class Box:\n        def value(self):\n            return helper(1)\n\n" +
    "    return helper(2), Box().value()\n\n\n" +
    "def helper_top(y):\n    return y\n\n\n" +
    "class Settings:\n    LIMIT = 3\n",
  // Same names written in other files: a parameter, a local, an import and a member use whose
  // receiver has no evident type (a guess by name may mean the nested class's method).
  "use.py": "from nest import helper_top\n\n\n" +
    "def caller(helper):\n    return helper(3) + helper_top(4)\n\n\n" +
    "def other():\n    helper = lambda v: v\n    return helper(5)\n\n\n" +
    "def read(thing):\n    return thing.value()\n\n\n" +
    "def limit():\n    from nest import Settings\n    return Settings.LIMIT\n",
  "make.js": "export function make() {\n" +
    "  function inner() {\n    return 1;\n  }\n" +
    "  return { build() {\n    return inner();\n  } };\n}\n",
  "build.js": "import { make } from './make.js';\n\nexport function run(box) {\n" +
    "  return box.build() + make();\n}\n",
  // A class whose base is a function: the function's nested definitions are locals of its body,
  // not members, so `this.render()` and `self.helper()` do not mean them.
  "widget.js": "export function Widget() {\n  function render() {\n    return 1;\n  }\n" +
    "  return render();\n}\n",
  "fancy.js": "import { Widget } from './widget.js';\n\nclass Fancy extends Widget {\n" +
    "  draw() {\n    return this.render();\n  }\n}\n",
  "base.py": "def Base():\n    def helper():\n        return 1\n    return helper()\n",
  "sub.py": "from base import Base\n\n\nclass Sub(Base):\n    def go(self):\n" +
    "        return self.helper()\n\n    def up(self):\n        return super().helper()\n",
};

Deno.test("a function's nested definitions are used only in their file; reachable ones everywhere", async () => {
  const workspace = await Workspace.open({
    directory: fixtureRepository(FILES),
    cacheDirectory: tempCache(),
  });
  try {
    await workspace.refresh(workspace.repositories[0]);
    const sites = async (action: string, path: string, line: number, column: number) => {
      const answer = await runAction(workspace, action, { path, line, column });
      const used = [...answer.results, ...(answer.candidates ?? [])] as {
        path: string;
        start_line: number;
      }[];
      return used.map((hit) => `${hit.path}:${hit.start_line}`).sort();
    };
    // The nested function: its two calls in nest.py, none of use.py's own `helper`s.
    assertEquals(await sites("references", "nest.py", 2, 9), ["nest.py:7", "nest.py:9"]);
    // The nested class: used in its file only.
    assertEquals(await sites("references", "nest.py", 5, 11), ["nest.py:9"]);
    // The nested class's method is a member: a use in another file may mean it.
    const value = await sites("references", "nest.py", 6, 13);
    nodeAssert.ok(value.includes("use.py:14"), value.join(" "));
    // A top-level function: imported and called from another file.
    const top = await sites("references", "nest.py", 12, 5);
    nodeAssert.ok(top.includes("use.py:5"), top.join(" "));
    // A function's nested definition reached through a class that extends the function: never
    // (references and definition agree).
    assertEquals(await sites("references", "widget.js", 2, 12), ["widget.js:5"]);
    assertEquals(await sites("definition", "fancy.js", 5, 17), []);
    assertEquals(await sites("references", "base.py", 2, 9), ["base.py:4"]);
    assertEquals(await sites("definition", "sub.py", 6, 21), []);
    assertEquals(await sites("definition", "sub.py", 9, 24), []);
    // A class attribute: a member, reached through its class from another file.
    const limit = await sites("references", "nest.py", 17, 5);
    nodeAssert.ok(limit.includes("use.py:19"), limit.join(" "));
    // JavaScript: the nested function is called from the object's method in its file; the
    // object's method is reached from another file by name.
    assertEquals(await sites("references", "make.js", 2, 12), ["make.js:6"]);
    const build = await sites("references", "make.js", 5, 12);
    nodeAssert.ok(build.includes("build.js:4"), build.join(" "));
  } finally {
    workspace.close();
  }
});
