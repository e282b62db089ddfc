/**
 * What the resolver keeps per generation of a target (rows as records, file
 * lines, a function's bracket depths, and for callers who see every path what
 * relations resolve to) never outlives the generation, and never shows one
 * caller what another may not see: a refresh that changes the answer changes
 * it at once, a warm answer equals the cold one (reading fewer rows), and a
 * path-restricted caller asking after an unrestricted one (or before) gets its
 * own answer.
 */
import nodeAssert from "node:assert/strict";
import { join } from "node:path";
import { runAction } from "../src/actions/dispatch.ts";
import type { Envelope } from "../src/protocol/types.ts";
import type { AccessContext } from "../src/workspace/scope.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { fixtureRepository, git, tempCache } from "./_helpers.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  nodeAssert.deepStrictEqual(actual, expected, message);

const FILES: Record<string, string> = {
  "lib.py": "def helper():\n    return 1\n",
  "a.py": "from lib import helper\n\n\ndef use_a():\n    return helper()\n",
  // A local of the same name shadows the import: not a use of lib.helper.
  "b.py": "from lib import helper\n\n\ndef use_b():\n    helper = lambda: 2\n    return helper()\n",
  "secret/c.py": "from lib import helper\n\n\ndef use_c():\n    return helper()\n",
};

function callers(envelope: Envelope): string[] {
  return envelope.results.map((h) => `${h.path}:${h.start_line} ${h.symbol}`).sort();
}

/** Rows an answer says it read. */
function rowsRead(envelope: Envelope): number {
  return (envelope.data as { rows_read: number }).rows_read;
}

/** An answer without the rows it read (fewer once resolutions are kept). */
function withoutRows(envelope: Envelope) {
  const { rows_read: _, ...data } = envelope.data as Record<string, unknown>;
  return { ...answerOf(envelope), data };
}

/** The parts of an answer that must not depend on what was asked before. */
function answerOf(envelope: Envelope) {
  return {
    results: envelope.results,
    candidates: envelope.candidates ?? [],
    limitations: envelope.limitations,
    truncated: envelope.truncated,
    next_cursor: envelope.next_cursor,
    data: envelope.data,
  };
}

function commit(root: string): void {
  git(root, "add", "-A");
  git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "edit");
}

Deno.test("a refresh that changes an answer changes it: nothing read for the old generation is served", async () => {
  const root = fixtureRepository(FILES);
  const workspace = await Workspace.open({ directory: root, cacheDirectory: tempCache() });
  try {
    const repo = workspace.repositories[0];
    await workspace.refresh(repo);
    const ask = () => runAction(workspace, "callers", { symbol: "helper" });
    const cold = await ask();
    assertEquals(callers(cold), ["a.py:5 a.use_a", "secret/c.py:5 secret.c.use_c"]);
    // Warm (every read and resolution kept for the generation): the same answer, and no use is
    // resolved again, so fewer rows are read.
    const warm = await ask();
    assertEquals(withoutRows(warm), withoutRows(cold));
    nodeAssert.ok(rowsRead(warm) < rowsRead(cold), `${rowsRead(warm)} < ${rowsRead(cold)}`);
    const impact = () => runAction(workspace, "impact", { symbol: "helper", depth: 3 });
    const coldImpact = await impact();
    nodeAssert.ok(coldImpact.results.length >= 2);
    const warmImpact = await impact();
    assertEquals(withoutRows(warmImpact), withoutRows(coldImpact));
    // Its first level was resolved by the callers asked before.
    nodeAssert.ok(rowsRead(warmImpact) <= rowsRead(coldImpact));
    // Once warm, asking again reads the same rows.
    assertEquals(answerOf(await impact()), answerOf(warmImpact));

    // The local binding goes away (same line count, so only the text of b.py says so).
    Deno.writeTextFileSync(
      join(root, "b.py"),
      FILES["b.py"].replace("    helper = lambda: 2\n", "    other = lambda: 2\n"),
    );
    commit(root);
    await workspace.refresh(repo);
    assertEquals(callers(await ask()), [
      "a.py:5 a.use_a",
      "b.py:6 b.use_b",
      "secret/c.py:5 secret.c.use_c",
    ]);

    // The callee renamed: its old uses resolve to nothing in the new generation.
    Deno.writeTextFileSync(join(root, "lib.py"), "def helper2():\n    return 1\n");
    commit(root);
    await workspace.refresh(repo);
    const renamed = await ask();
    assertEquals(renamed.results, []);
    nodeAssert.ok(renamed.limitations.includes("no definition named 'helper' in scope"));
  } finally {
    workspace.close();
  }
});

Deno.test("rows kept for a generation are filtered per caller: hidden callers stay hidden, in any order", async () => {
  const root = fixtureRepository(FILES);
  const restricted: AccessContext = {
    allowPath: (_repo, path) => !path.startsWith("secret/"),
    pathRestricted: () => true,
  };
  const answers = async (order: ("open" | "restricted")[]) => {
    const workspace = await Workspace.open({ directory: root, cacheDirectory: tempCache() });
    try {
      await workspace.refresh(workspace.repositories[0]);
      const out: Record<string, ReturnType<typeof answerOf>> = {};
      for (const who of order) {
        const envelope = await runAction(
          workspace,
          "callers",
          { symbol: "helper" },
          who === "restricted" ? restricted : {},
        );
        out[who] = answerOf(envelope);
      }
      return out;
    } finally {
      workspace.close();
    }
  };
  const openFirst = await answers(["open", "restricted"]);
  const restrictedFirst = await answers(["restricted", "open"]);
  assertEquals(
    openFirst.open.results.map((h) => `${h.path} ${h.symbol}`).sort(),
    ["a.py a.use_a", "secret/c.py secret.c.use_c"],
  );
  assertEquals(openFirst.restricted.results.map((h) => `${h.path} ${h.symbol}`), ["a.py a.use_a"]);
  // Each caller's answer (rows_read included) is the same whichever asked first.
  assertEquals(restrictedFirst.restricted, openFirst.restricted);
  assertEquals(restrictedFirst.open, openFirst.open);
  nodeAssert.ok(
    (openFirst.restricted.data as { rows_read: number }).rows_read <
      (openFirst.open.data as { rows_read: number }).rows_read,
  );
});

Deno.test("what a use resolves to is kept per caller's view: never another caller's answer", async () => {
  // A visible use whose definition lies on a hidden path.
  const root = fixtureRepository({
    "secret/impl.py": "def run():\n    return 1\n",
    "api.py": "from secret.impl import run\n\n\ndef go():\n    return run()\n",
  });
  const allow = (path: string) => !path.startsWith("secret/");
  const restricted: AccessContext = {
    allowPath: (_repo, path) => allow(path),
    pathRestricted: () => true,
    pathRule: () => ({ key: "not secret/", allow }),
  };
  const use = { path: "api.py", line: 5, column: 12 };
  const answers = async (order: ("open" | "restricted")[]) => {
    const workspace = await Workspace.open({ directory: root, cacheDirectory: tempCache() });
    try {
      await workspace.refresh(workspace.repositories[0]);
      const out: Record<string, Envelope[]> = {};
      for (const who of order) {
        // Asked twice: the second answer takes what the first kept.
        out[who] = [];
        for (let i = 0; i < 2; i++) {
          const context = who === "restricted" ? restricted : {};
          out[who].push(await runAction(workspace, "definition", use, context));
        }
      }
      return out;
    } finally {
      workspace.close();
    }
  };
  const openFirst = await answers(["open", "restricted"]);
  const restrictedFirst = await answers(["restricted", "open"]);
  const [open, openWarm] = openFirst.open;
  assertEquals(open.results.map((h) => `${h.path} ${h.symbol}`), [
    "secret/impl.py secret.impl.run",
  ]);
  const [hidden, hiddenWarm] = openFirst.restricted;
  const shown = JSON.stringify([answerOf(hidden), answerOf(hiddenWarm)]);
  nodeAssert.ok(!shown.includes("secret/impl.py"), shown);
  // Each caller's answers are the same whichever asked first, and each caller's warm answer is
  // its cold one read from what it kept.
  assertEquals(openFirst.restricted.map(answerOf), restrictedFirst.restricted.map(answerOf));
  assertEquals(openFirst.open.map(answerOf), restrictedFirst.open.map(answerOf));
  assertEquals(withoutRows(hiddenWarm), withoutRows(hidden));
  nodeAssert.ok(rowsRead(hiddenWarm) < rowsRead(hidden));
  assertEquals(withoutRows(openWarm), withoutRows(open));
  nodeAssert.ok(rowsRead(openWarm) < rowsRead(open));
});

Deno.test("a module path read from the working tree keeps no resolution: an edit of it answers at once", async () => {
  // No go.mod when the target was built: module paths come from the working tree's.
  const root = fixtureRepository({
    "pkg/f.go": "package pkg\n\nfunc F() int {\n\treturn 1\n}\n",
    "main.go": 'package main\n\nimport "example.com/m/pkg"\n\nfunc main() {\n\tpkg.F()\n}\n',
  });
  const workspace = await Workspace.open({ directory: root, cacheDirectory: tempCache() });
  try {
    await workspace.refresh(workspace.repositories[0]);
    const ask = () => runAction(workspace, "callers", { symbol: "F" });
    Deno.writeTextFileSync(join(root, "go.mod"), "module example.com/m\n\ngo 1.21\n");
    assertEquals(callers(await ask()), ["main.go:6 main.main"]);
    assertEquals(callers(await ask()), ["main.go:6 main.main"]);
    // The import names another module now, whatever an earlier request resolved.
    Deno.writeTextFileSync(join(root, "go.mod"), "module example.com/other\n\ngo 1.21\n");
    assertEquals(callers(await ask()), []);
  } finally {
    workspace.close();
  }
});
