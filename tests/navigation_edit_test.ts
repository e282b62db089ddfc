/**
 * Edits never lose edges other files hold: callers survive an edit of the
 * callee's file, a rename makes them resolve to nothing (and says so), and
 * `impact --diff` starts from what the working tree changed.
 */
import nodeAssert from "node:assert/strict";
import { join } from "node:path";
import { runAction } from "../src/actions/dispatch.ts";
import type { Envelope } from "../src/protocol/types.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { git, tempCache, writeFiles } from "./_helpers.ts";
import { APP, UI, writeWorkspaceFixture } from "./_workspace_fixture.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  nodeAssert.deepStrictEqual(actual, expected, message);

function sites(envelope: Envelope): string[] {
  return envelope.results.map((h) => `${h.repo}:${h.path}:${h.start_line} ${h.symbol}`);
}

Deno.test("callers survive an edit of the callee's file; a rename leaves them unresolved", async (t) => {
  const { root, repos } = writeWorkspaceFixture({ ui: UI, app: APP });
  const workspace = await Workspace.open({ directory: root, cacheDirectory: tempCache() });
  const run = (action: string, params: Record<string, unknown>) =>
    runAction(workspace, action, params);
  const formatFile = join(repos.ui, "src/format.ts");
  try {
    for (const repo of workspace.repositories) await workspace.refresh(repo);

    await t.step("before the edit", async () => {
      const callers = await run("callers", { symbol: "formatDate", repo: "ui" });
      assertEquals(sites(callers), ["app:src/main.ts:9 src/main.main"]);
    });

    await t.step("the rows a request reads follow the answer, not the workspace", async () => {
      // Asked twice each time: the second answer is warm (every use's resolution kept).
      await run("callers", { symbol: "formatDate", repo: "ui", depth: 3 });
      const before = await run("callers", { symbol: "formatDate", repo: "ui", depth: 3 });
      const unrelated: Record<string, string> = {};
      for (let i = 0; i < 60; i++) {
        unrelated[`src/gen/mod${i}.ts`] = `import { helper${i + 1} } from "./mod${i + 1}";\n` +
          `export function helper${i}(): number {\n  return helper${i + 1}() + ${i};\n}\n`;
      }
      writeFiles(repos.app, unrelated);
      git(repos.app, "add", "src/gen");
      git(repos.app, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "unrelated");
      for (const repo of workspace.repositories) await workspace.refresh(repo);
      const indexed = await run("symbols", { query: "helper59", repo: "app" });
      assertEquals(indexed.results.length, 1);
      await run("callers", { symbol: "formatDate", repo: "ui", depth: 3 });
      const after = await run("callers", { symbol: "formatDate", repo: "ui", depth: 3 });
      nodeAssert.ok(sites(after).length > 0);
      assertEquals(sites(after), sites(before));
      const rows = (envelope: Envelope) => (envelope.data as { rows_read: number }).rows_read;
      assertEquals(rows(after), rows(before));
    });

    await t.step("edit only the callee's file (rename nothing), refresh", async () => {
      Deno.writeTextFileSync(
        formatFile,
        `// Dates for people.\n\n${
          UI["src/format.ts"].replace("String(n)", 'String(n).padStart(2, "0")')
        }`,
      );
      const callers = await run("callers", { symbol: "formatDate", repo: "ui", refresh: true });
      assertEquals(sites(callers), ["app:src/main.ts:9 src/main.main"]);
      assertEquals(callers.results[0].evidence, "import");
      const definition = await run("definition", {
        repo: "app",
        path: "src/main.ts",
        line: 9,
        column: 10,
      });
      assertEquals(definition.results.map((h) => `${h.path}:${h.start_line}`), ["src/format.ts:3"]);
    });

    await t.step(
      "rename the callee: its callers' edges resolve to nothing and say so",
      async () => {
        Deno.writeTextFileSync(
          formatFile,
          Deno.readTextFileSync(formatFile).replace("function formatDate", "function formatDay"),
        );
        const renamed = await run("callers", { symbol: "formatDay", repo: "ui", refresh: true });
        assertEquals(sites(renamed), []);
        const old = await run("callers", { symbol: "formatDate", repo: "ui" });
        assertEquals(old.results, []);
        nodeAssert.ok(old.limitations.includes("no definition named 'formatDate' in scope"));
        nodeAssert.ok((old.data as { suggestions: string[] }).suggestions.includes("formatDay"));
        const callees = await run("callees", { symbol: "main", repo: "app" });
        nodeAssert.ok(!callees.results.some((h) => String(h.symbol).includes("format")));
        const said = callees.limitations.find((l) =>
          l.startsWith("calls 'fmt' at app:src/main.ts:9")
        );
        nodeAssert.ok(said, callees.limitations.join("\n"));
        nodeAssert.ok(said.includes("resolves to nothing"), said);
        const use = await run("definition", {
          repo: "app",
          path: "src/main.ts",
          line: 9,
          column: 10,
        });
        assertEquals(use.results, []);
        nodeAssert.ok(use.limitations.some((l) => l.includes("resolves to nothing")));
      },
    );

    await t.step("impact --diff on an uncommitted change", async () => {
      const util = join(repos.app, "src/util.ts");
      Deno.writeTextFileSync(
        util,
        Deno.readTextFileSync(util).replace(
          "export function shared(): void {}",
          'export function shared(): void {\n  console.log("changed");\n}',
        ),
      );
      const impact = await run("impact", { diff: true, repo: "app", depth: 3, refresh: true });
      const reached = impact.results.map((h) => `${h.depth}:${h.symbol}`);
      assertEquals(
        reached.filter((r) => !r.endsWith(".ts")),
        ["1:src/util.localHelper", "2:src/main.main", "3:src/main.start"],
      );
      const roots = (impact.data as { roots: { symbol: string }[] }).roots.map((r) => r.symbol);
      assertEquals(roots, ["src/util.shared"]);
      assertEquals(impact.provenance.confidence, "exact");
    });
  } finally {
    workspace.close();
  }
});
