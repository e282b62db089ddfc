/**
 * Per-family resolver rules of C#, Kotlin and Scala, through `definition` at a use: a C# local
 * declared with its type (`Greeter g = …`) types its receiver, and the other files of a
 * directory own the names a file leaves unbound (a JVM package; C#'s global namespace).
 */
import assert from "node:assert/strict";
import type { Envelope } from "../src/protocol/types.ts";
import { fixtureRepository, withWorkspace } from "./_helpers.ts";

/** The 1-based line and column of `needle` in `text` (the line holding `marker`). */
function at(text: string, marker: string, needle: string): { line: number; column: number } {
  const lines = text.split("\n");
  const index = lines.findIndex((line) => line.includes(marker));
  assert.ok(index >= 0, `no line holds ${marker}`);
  return {
    line: index + 1,
    column: lines[index].indexOf(needle, lines[index].indexOf(marker)) + 1,
  };
}

function answers(envelope: Envelope): string[] {
  return envelope.results.map((hit) =>
    `${hit.path}:${hit.start_line} ${hit.symbol} ${hit.evidence} ${hit.confidence}`
  );
}

const CSHARP_PROGRAM = `using System;

namespace App
{
    public class Greeter { public void Run(int times) { } }
    public class Other { public void Run(int times) { } }

    public class Program
    {
        public static void Main()
        {
            Greeter g = MakeGreeter();
            g.Run(1);
        }

        static Greeter MakeGreeter() => null;
    }
}
`;

const CSHARP_GLOBAL = `public static class Entry
{
    public static int Start() => Util.Twice(2);
}
`;

Deno.test("C#: a local declared with its type resolves its member calls; a global type of the directory is owned", async () => {
  const root = fixtureRepository({
    "src/Program.cs": CSHARP_PROGRAM,
    "src/Entry.cs": CSHARP_GLOBAL,
    "src/Util.cs": "public static class Util\n{\n    public static int Twice(int x) => x * 2;\n}\n",
    "lib/Util.cs": "public static class Util\n{\n    public static int Twice(int x) => x + x;\n}\n",
  });
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const call = at(CSHARP_PROGRAM, "g.Run(1)", "Run");
    const typed = await run("definition", { path: "src/Program.cs", ...call });
    assert.deepEqual(answers(typed), ["src/Program.cs:5 App.Greeter.Run same_file exact"]);

    const owned = await run("definition", {
      path: "src/Entry.cs",
      ...at(CSHARP_GLOBAL, "Util.Twice", "Twice"),
    });
    assert.deepEqual(answers(owned), ["src/Util.cs:3 Util.Twice module_path exact"]);
  });
});

const KOTLIN_MAIN = `package app

fun main() {
    helper()
}
`;

Deno.test("Kotlin: the other files of the package's directory own a bare name", async () => {
  const root = fixtureRepository({
    "src/app/Main.kt": KOTLIN_MAIN,
    "src/app/Util.kt": "package app\n\nfun helper(): Int = 1\n",
    "src/other/Util.kt": "package other\n\nfun helper(): Int = 2\n",
  });
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const found = await run("definition", {
      path: "src/app/Main.kt",
      ...at(KOTLIN_MAIN, "helper()", "helper"),
    });
    assert.deepEqual(answers(found), ["src/app/Util.kt:3 app.helper module_path exact"]);
  });
});

const SCALA_MAIN = `package app

object Main {
  def run(): Int = Util.twice(2)
}
`;

Deno.test("Scala: an object of the package's directory owns the receiver of a call", async () => {
  const root = fixtureRepository({
    "src/app/Main.scala": SCALA_MAIN,
    "src/app/Util.scala": "package app\n\nobject Util {\n  def twice(x: Int): Int = x * 2\n}\n",
    "src/other/Util.scala": "package other\n\nobject Util {\n  def twice(x: Int): Int = x + x\n}\n",
  });
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const found = await run("definition", {
      path: "src/app/Main.scala",
      ...at(SCALA_MAIN, "Util.twice", "twice"),
    });
    assert.deepEqual(answers(found), ["src/app/Util.scala:4 app.Util.twice module_path exact"]);
  });
});
