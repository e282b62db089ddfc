import assert from "node:assert/strict";
import { runAction } from "../src/actions/dispatch.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { fixtureRepository, tempCache, tempDirectory, writeFiles } from "./_helpers.ts";

Deno.test("search: only visible repositories and allowed paths are searched or counted", async () => {
  const shared = "export function secretRotation() {\n  return 'rotate keys';\n}\n";
  const alpha = fixtureRepository({ "src/open.ts": shared, "private/keys.ts": shared });
  const beta = fixtureRepository({ "src/beta.ts": shared });
  const workspaceDir = tempDirectory({ prefix: "sextant-ws-" });
  writeFiles(workspaceDir, {
    "sextant.yml":
      `repositories:\n  - name: alpha\n    path: ${alpha}\n  - name: beta\n    path: ${beta}\n`,
  });
  const workspace = await Workspace.open({ directory: workspaceDir, cacheDirectory: tempCache() });
  try {
    await runAction(workspace, "refresh", {});
    const all = await runAction(workspace, "search", { query: "secretRotation", limit: 10 });
    assert.deepEqual(
      new Set(all.results.map((hit) => `${hit.repo}:${hit.path}`)),
      new Set(["alpha:src/open.ts", "alpha:private/keys.ts", "beta:src/beta.ts"]),
    );
    const context = {
      repositories: new Set(["alpha"]),
      allowPath: (_repo: string, path: string) => !path.startsWith("private/"),
    };
    const scoped = await runAction(workspace, "search", { query: "secretRotation" }, context);
    assert.deepEqual(scoped.results.map((hit) => `${hit.repo}:${hit.path}`), ["alpha:src/open.ts"]);
    assert.equal(scoped.truncated, false);
    assert.deepEqual(scoped.repositories.map((state) => state.name), ["alpha"]);
    for (const strategy of ["lexical", "vector"]) {
      const hidden = await runAction(
        workspace,
        "search",
        { query: "secretRotation", strategy },
        context,
      );
      assert.ok(hidden.results.every((hit) => !hit.path.startsWith("private/")), strategy);
    }
    // A repository the caller may not see is answered as not found.
    await assert.rejects(
      runAction(workspace, "search", { query: "secretRotation", repo: "beta" }, context),
      /not in the workspace/,
    );
  } finally {
    workspace.close();
  }
});
