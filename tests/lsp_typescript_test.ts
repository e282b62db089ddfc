/** typescript-language-server (tsserver) as a routed backend on a small TypeScript repository (real process). */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { LspAnswer, RouteResult } from "../src/lsp/mod.ts";
import { repository, TYPESCRIPT_FILES, typescriptServer, withLsp } from "./lsp_fixture.ts";

function answered(result: RouteResult): LspAnswer {
  if (!result.ok) throw new Error(`expected an answer, got ${result.reason}: ${result.message}`);
  return result;
}

Deno.test("typescript-language-server answers definition, references and call hierarchy through the router (real process)", async (t) => {
  const root = repository({
    ...TYPESCRIPT_FILES,
    // On disk and in the project, but not committed: not in the snapshot the index holds.
    ".gitignore": "src/extra.ts\n",
    "src/extra.ts": 'import { helper } from "./util";\nexport const twice = helper(2);\n',
  });
  await withLsp(
    { repositories: { web: root }, lsp: { typescript: typescriptServer() } },
    async (lsp) => {
      const request = lsp.request("web", "typescript");

      await t.step(
        "definition follows the import to the declaration (not the import line)",
        async () => {
          const answer = answered(
            await lsp.router.definition(request, { path: "src/main.ts", line: 4, column: 17 }),
          );
          assert.equal(answer.backend, "lsp:typescript");
          assert.equal(answer.confidence, "exact");
          assert.deepEqual(
            answer.hits.map((hit) => [hit.path, hit.start_line, hit.start_column, hit.symbol]),
            [["src/util.ts", 1, 17, "helper"]],
          );
          assert.equal(
            answer.hits[0].snippet.split("\n")[0],
            "export function helper(x: number): number {",
          );
        },
      );

      await t.step("a tsx file is served by the typescript server", async () => {
        const answer = answered(
          await lsp.router.definition(
            { ...request, language: "tsx" },
            { path: "src/main.ts", line: 5, column: 17 },
          ),
        );
        assert.deepEqual(answer.hits.map((hit) => [hit.path, hit.start_line]), [[
          "src/util.ts",
          5,
        ]]);
      });

      await t.step("references of a method from its declaration", async () => {
        const answer = answered(
          await lsp.router.references(request, { path: "src/util.ts", line: 6, column: 3 }),
        );
        assert.deepEqual(
          answer.hits.map((hit) => `${hit.path}:${hit.start_line}:${hit.start_column}`),
          ["src/main.ts:6:17"],
        );
        assert.equal(answer.hits[0].snippet, '  console.log(g.greet("a"));');
      });

      await t.step("callers and callees (a caller in an unindexed file is dropped)", async () => {
        const callers = answered(
          await lsp.router.callers(request, { path: "src/util.ts", line: 1, column: 17 }),
        );
        assert.deepEqual(
          callers.hits.map((hit) => `${hit.symbol}@${hit.start_line}`).sort(),
          ["other@11", "run@4"],
        );
        assert.equal(callers.dropped.not_indexed, 1);
        const callees = answered(
          await lsp.router.callees(request, { path: "src/main.ts", line: 10, column: 17 }),
        );
        assert.deepEqual(callees.hits.map((hit) => hit.symbol).sort(), ["helper", "run"]);
        const run = callees.hits.find((hit) => hit.symbol === "run")!;
        assert.deepEqual(
          [run.path, run.start_line, (run.node as { start_line: number }).start_line],
          ["src/main.ts", 11, 3],
        );
      });

      await t.step(
        "an edited caller file is fresh: false; an unindexed file is dropped",
        async () => {
          Deno.writeTextFileSync(
            join(root, "src/main.ts"),
            "// a comment\n" + TYPESCRIPT_FILES["src/main.ts"],
          );
          const answer = answered(
            await lsp.router.references(request, { path: "src/util.ts", line: 1, column: 17 }),
          );
          assert.equal(answer.fresh, false);
          // main.ts is read from the working tree by the server (one line lower); the hits carry
          // its committed lines. extra.ts is not in the committed snapshot.
          assert.deepEqual(
            answer.hits.map((hit) => `${hit.path}:${hit.start_line}:${hit.fresh}`).sort(),
            ["src/main.ts:11:false", "src/main.ts:1:false", "src/main.ts:4:false"],
          );
          assert.ok(answer.dropped.not_indexed >= 1);
        },
      );
    },
  );
});
