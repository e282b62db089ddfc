import assert from "node:assert/strict";
import { join } from "node:path";
import { AccessPolicy } from "../src/daemon/policy.ts";
import { WireError } from "../src/protocol/errors.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { git, tempCache, tempDirectory, writeFiles } from "./_helpers.ts";

function nestedRepository(root: string, path: string): void {
  writeFiles(root, { [`${path}/main.py`]: "def main():\n    return 0\n" });
  git(join(root, path), "init", "-q");
}

Deno.test("registry: discovery adds nested git repositories; explicit entries keep their names", async () => {
  const root = Deno.realPathSync(tempDirectory({ prefix: "sextant-ws-" }));
  for (
    const path of ["services/core", "services/api", "libs/util", "node_modules/pkg", ".hidden/x"]
  ) {
    nestedRepository(root, path);
  }
  writeFiles(root, {
    "sextant.yml": `workspace:
  discover: true
repositories:
  - name: core
    path: services/core
project_siblings:
  - [core, services/api]
`,
  });
  const workspace = await Workspace.open({ directory: root, cacheDirectory: tempCache() });
  try {
    assert.deepEqual(workspace.repositories.map((r) => r.name), [
      "core",
      "libs/util",
      "services/api",
    ]);
    assert.deepEqual(workspace.siblingsOf("core"), ["services/api"]);
    const scoped = workspace.scoped(new Set(["core"]));
    assert.deepEqual(scoped.repositories.map((r) => r.name), ["core"]);
    assert.deepEqual(scoped.siblingsOf("core"), [], "a sibling it may not see is not a sibling");
    const message = (name: string, view: Workspace) => {
      try {
        view.select(name);
      } catch (error) {
        assert.ok(error instanceof WireError);
        return error.message.replace(name, "X");
      }
      assert.fail("selected");
    };
    assert.equal(message("services/api", scoped), message("nowhere", scoped));
  } finally {
    workspace.close();
  }
});

Deno.test("registry: without discovery only explicit repositories; a bad agents section is a clear error", async () => {
  const root = Deno.realPathSync(tempDirectory({ prefix: "sextant-ws-" }));
  nestedRepository(root, "a");
  nestedRepository(root, "b");
  writeFiles(root, { "sextant.yml": "repositories:\n  - name: a\n    path: a\n" });
  const workspace = await Workspace.open({ directory: root, cacheDirectory: tempCache() });
  assert.deepEqual(workspace.repositories.map((r) => r.name), ["a"]);
  workspace.close();
  const bad = (agents: string) => () =>
    AccessPolicy.fromConfig({ agents: JSON.parse(agents) }, "sextant.yml");
  assert.throws(
    bad('{"x": {"repositories": ["a"]}}'),
    /agent 'x' needs 'token_env' or 'token_sha256'/,
  );
  assert.throws(bad('{"x": {"token_env": "T", "mode": "loud"}}'), /key 'mode'/);
  assert.throws(bad('{"x": {"token_env": "T", "max_results": 0}}'), /max_results/);
  assert.throws(bad('{"x": {"token_sha256": "abc"}}'), /64 hex digits/);
  assert.throws(bad('{"x": {"token_env": "T", "actions": ["teleport"]}}'), /unknown action/);
  assert.throws(bad('["x"]'), /'agents' is not a mapping/);
});

Deno.test("policy: tokens from token_env and token_sha256; grants filter results again", () => {
  const policy = AccessPolicy.fromConfig(
    {
      agents: {
        env: { token_env: "SEXTANT_TEST_TOKEN", repositories: ["a"], paths: { a: ["src/**"] } },
        hashed: {
          // sha256("s3cret")
          token_sha256: "1ec1c26b50d5d3c58d9583181af8076655fe00756bf7285940ba3670f99fcba0",
          repositories: "*",
        },
        unset: { token_env: "SEXTANT_TEST_UNSET" },
      },
    },
    "sextant.yml",
    (name) => (name === "SEXTANT_TEST_TOKEN" ? "t0ken" : undefined),
  );
  assert.equal(policy.open, false);
  const grant = policy.authenticate("env", "t0ken");
  assert.equal(grant.agent, "env");
  assert.throws(() => policy.authenticate("env", "t0ken!"), /Unknown agent or wrong token/);
  assert.throws(() => policy.authenticate("unset", ""), /Unknown agent or wrong token/);
  assert.throws(() => policy.authenticate("hashed", "wrong"), /Unknown agent or wrong token/);
  assert.equal(policy.authenticate("hashed", "s3cret").agent, "hashed");
  assert.equal(grant.allowPath("a", "src/x.ts"), true);
  assert.equal(grant.allowPath("a", "docs/x.md"), false);
  const filtered = grant.filter({
    action: "search",
    results: [
      hit("a", "src/x.ts"),
      hit("a", "docs/x.md"),
      hit("b", "src/y.ts"),
      {
        ...hit("a", "src/z.ts"),
        via: [{ repo: "b", path: "src/q.ts" }, { repo: "a", path: "src/k.ts" }],
      },
    ],
    provenance: {
      backend: "fts",
      confidence: "reliable",
      fresh: true,
      fallback_used: false,
      fallback_reason: null,
    },
    repositories: [{ name: "a", generation: 1, head: null }, {
      name: "b",
      generation: 3,
      head: null,
    }],
    limitations: ["b: target missing", "a: fine"],
    truncated: false,
    next_cursor: null,
    trace_id: "t",
  }, new Set(["a"]));
  assert.deepEqual(filtered.results.map((h) => h.path), ["src/x.ts", "src/z.ts"]);
  assert.deepEqual(filtered.results[1].via, [{ repo: "a", path: "src/k.ts" }]);
  assert.deepEqual(filtered.repositories.map((r) => r.name), ["a"]);
  assert.deepEqual(filtered.limitations, ["a: fine"]);
  assert.equal(AccessPolicy.fromConfig({}, "x").open, true);
});

function hit(repo: string, path: string) {
  return {
    repo,
    path,
    start_line: 1,
    end_line: 1,
    symbol: null,
    kind: "text",
    signature: null,
    language: null,
    source_kind: "local" as const,
    score: 1,
    snippet: "x",
  };
}
