/**
 * The dependency index through the actions and the CLI: imports followed into a virtual
 * environment, node_modules (a pnpm link included), the Go module cache and the Cargo registry;
 * `search --kind`; `status`; the fingerprint (no work when nothing changed, an upgrade picked
 * up); one target per package version shared by two repositories; bad input bounded, counted
 * and never run; a path-restricted agent.
 */
// Answers are untyped JSON.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  runCli,
  startDaemon,
  tempCache,
  tempDirectory,
  withWorkspace,
  writeFiles,
} from "./_helpers.ts";
import { DaemonClient } from "../src/daemon/client.ts";
import {
  appRepository,
  MARKER_DIRECTORY,
  nativeRepository,
  SITE,
  upgradeFakeretry,
} from "./_deps_fixture.ts";
import { walkPackage } from "../src/deps/walk.ts";
import { typescriptServer } from "./lsp_fixture.ts";

const RETRY_USE = { path: "app/client.py", line: 10, column: 14 };
const ROUTER_USE = { path: "src/server.ts", line: 10, column: 14 };
const LINKED_USE = { path: "src/server.ts", line: 9, column: 3 };
const MIDDLEWARE_USE = { path: "src/server.ts", line: 13, column: 26 };
const UNTYPED_USE = { path: "src/server.ts", line: 14, column: 3 };

Deno.test("dependencies (actions): imports lead into the venv and node_modules, labelled, at level 3; search --kind filters; status counts what was left out", async (t) => {
  const root = appRepository();
  await withWorkspace(root, async (_workspace, run) => {
    const refreshed: any = await run("refresh", {});
    const summary = refreshed.data.reports[0].dependencies;
    assert.equal(summary.changed, true);
    assert.equal(summary.packages, 7, JSON.stringify(summary));

    await t.step("a Python import into the virtual environment", async () => {
      const answer: any = await run("definition", RETRY_USE);
      assert.equal(answer.results.length, 1, JSON.stringify(answer.limitations));
      const hit = answer.results[0];
      assert.equal(hit.repo, "sextant-fixture-" + root.split("sextant-fixture-")[1]);
      assert.equal(hit.path, `${SITE}/fakeretry/util/retry.py`);
      assert.equal(hit.start_line, 1);
      assert.equal(hit.symbol, "fakeretry.util.retry.Retry");
      assert.equal(hit.source_kind, "dependency");
      assert.equal(hit.evidence_level, 3);
      assert.equal(hit.confidence, "exact");
      assert.deepEqual(hit.dependency, {
        ecosystem: "pypi",
        name: "fakeretry",
        version: "1.2.3",
        path: "fakeretry/util/retry.py",
      });
      assert.match(hit.snippet, /^class Retry:/);
    });

    await t.step("a TypeScript import into node_modules: the declaration", async () => {
      const answer: any = await run("definition", ROUTER_USE);
      assert.deepEqual(
        answer.results.map((hit: any) => [hit.path, hit.start_line, hit.source_kind]),
        [["node_modules/tinylib/dist/index.d.ts", 2, "dependency"]],
      );
      assert.equal(answer.results[0].dependency.version, "2.0.1");
    });

    await t.step("a pnpm link is followed inside the repository", async () => {
      const answer: any = await run("definition", LINKED_USE);
      assert.deepEqual(answer.results.map((hit: any) => hit.path), [
        "node_modules/.pnpm/linked@1.0.0/node_modules/linked/index.js",
      ]);
    });

    await t.step(
      "a type re-exported from another package, and DefinitelyTyped's declarations",
      async () => {
        const middleware: any = await run("definition", MIDDLEWARE_USE);
        assert.deepEqual(
          middleware.results.map((hit: any) => [hit.path, hit.name, hit.dependency.name]),
          [["node_modules/tinymw/index.d.ts", "Middleware", "tinymw"]],
        );
        const untyped: any = await run("definition", UNTYPED_USE);
        assert.deepEqual(
          untyped.results.map((hit: any) => [hit.path, hit.dependency.name]),
          [["node_modules/@types/untyped/index.d.ts", "@types/untyped"]],
        );
      },
    );

    await t.step("references of a package's definition list the repository's uses", async () => {
      const answer: any = await run("references", { ...RETRY_USE, limit: 20 });
      const local = answer.results.filter((hit: any) => hit.source_kind === "local")
        .map((hit: any) => `${hit.path}:${hit.start_line}`);
      assert.deepEqual(local.sort(), ["app/client.py:10", "app/client.py:3"]);
    });

    await t.step("search --kind: dependency, local, doc, all", async () => {
      const query = "retry exponential backoff";
      const dependency: any = await run("search", { query, kind: "dependency" });
      assert.ok(dependency.results.length > 0);
      assert.ok(dependency.results.every((hit: any) => hit.source_kind === "dependency"));
      assert.equal(dependency.results[0].path, `${SITE}/fakeretry/util/retry.py`);
      const local: any = await run("search", { query, kind: "local" });
      assert.ok(local.results.every((hit: any) => hit.source_kind === "local"));
      assert.ok(local.results.some((hit: any) => hit.path === "app/client.py"));
      const plain: any = await run("search", { query });
      assert.ok(plain.results.every((hit: any) => hit.source_kind !== "dependency"));
      const doc: any = await run("search", { query: "tiny router mount handlers", kind: "doc" });
      assert.equal(doc.results[0].path, "node_modules/tinylib/README.md");
      assert.equal(doc.results[0].source_kind, "doc");
      const all: any = await run("search", { query, kind: "all", limit: 20 });
      const kinds = new Set(all.results.map((hit: any) => hit.source_kind));
      assert.ok(kinds.has("local") && kinds.has("dependency"));
    });

    await t.step("status: packages, and bad input counted with examples", async () => {
      const status: any = await run("status", {});
      const deps = status.data.repositories[0].dependencies;
      assert.deepEqual(
        deps.packages.map((p: any) => `${p.ecosystem}:${p.name}@${p.version}`).sort(),
        [
          "npm:@types/untyped@0.1.2",
          "npm:linked@1.0.0",
          "npm:tinylib@2.0.1",
          "npm:tinymw@1.0.0",
          "npm:untyped@0.1.0",
          "pypi:fakeretry@1.2.3",
          "pypi:trap@unknown",
        ],
      );
      assert.equal(deps.problems.compiled_only, 1);
      assert.deepEqual(deps.examples.compiled_only, ["speedups"]);
      assert.equal(deps.problems.outside_allowed_roots, 1);
      assert.match(deps.examples.outside_allowed_roots[0], /^escaper → /);
      assert.deepEqual(deps.examples.missing.sort(), ["missingpkg", "notinstalled"]);
      const tinylib = deps.packages.find((p: any) => p.name === "tinylib");
      assert.equal(tinylib.skipped.sources_with_types, 1, "declarations first");
      assert.ok(tinylib.target_bytes > 0);
      // The unused package with 300 files was never walked.
      assert.ok(!deps.packages.some((p: any) => p.name === "unused"));
      assert.ok(deps.files < 20);
    });
  }, tempCache());
  assert.deepEqual([...Deno.readDirSync(MARKER_DIRECTORY)], [], "no package code ran");
});

Deno.test("dependencies (actions): an unchanged fingerprint does no work; an upgrade is picked up by the next refresh; one target per version", async () => {
  const root = appRepository();
  const cache = tempCache();
  await withWorkspace(root, async (_workspace, run) => {
    const first: any = await run("refresh", {});
    assert.equal(first.data.reports[0].dependencies.changed, true);
    const again: any = await run("refresh", {});
    assert.equal(again.data.reports[0].dependencies.changed, false);
    assert.equal(again.data.reports[0].dependencies.built, 0);
    // An edit of the repository's own code changes no dependency.
    Deno.writeTextFileSync(join(root, "app/extra.py"), "def extra():\n    return 1\n");
    const edited: any = await run("refresh", {});
    assert.equal(edited.data.reports[0].changed, true);
    assert.equal(edited.data.reports[0].dependencies.changed, false);
    // An edit that imports another external package is seen (a refresh reads the imports of the
    // files that changed only), and so is its removal.
    const missing = (report: any) => report.data.reports[0].dependencies.problems.missing ?? 0;
    Deno.writeTextFileSync(
      join(root, "app/extra.py"),
      "import brandnewpkg\n\n\ndef extra():\n    return 1\n",
    );
    const importing: any = await run("refresh", {});
    assert.equal(importing.data.reports[0].dependencies.changed, true);
    assert.equal(missing(importing), missing(edited) + 1);
    Deno.writeTextFileSync(join(root, "app/extra.py"), "def extra():\n    return 1\n");
    const removed: any = await run("refresh", {});
    assert.equal(removed.data.reports[0].dependencies.changed, true);
    assert.equal(missing(removed), missing(edited));

    upgradeFakeretry(root, "1.2.3", "1.3.0");
    const upgraded: any = await run("refresh", {});
    assert.equal(upgraded.data.reports[0].dependencies.changed, true);
    assert.equal(upgraded.data.reports[0].dependencies.built, 1, "only the upgraded package");
    const answer: any = await run("definition", RETRY_USE);
    assert.equal(answer.results[0].dependency.version, "1.3.0");
    assert.match(answer.results[0].snippet, /now with jitter/);
  }, cache);
  const targets = [...Deno.readDirSync(join(cache, "deps"))].map((e) => e.name).sort();
  assert.deepEqual(targets.filter((name) => name.startsWith("pypi-fakeretry")).length, 2);

  // A second repository with the same version shares its target.
  const other = appRepository({ version: "1.3.0", marker: "other" });
  upgradeFakeretry(other, "1.3.0", "1.3.0");
  await withWorkspace(other, async (_workspace, run) => {
    const refreshed: any = await run("refresh", {});
    const summary = refreshed.data.reports[0].dependencies;
    assert.equal(summary.packages, 7);
    const status: any = await run("status", {});
    const fakeretry = status.data.repositories[0].dependencies.packages
      .find((p: any) => p.name === "fakeretry");
    assert.equal(fakeretry.version, "1.3.0");
  }, cache);
  const after = [...Deno.readDirSync(join(cache, "deps"))].map((e) => e.name).sort();
  assert.deepEqual(after, targets, "no new target for a version already indexed");
});

Deno.test("dependencies (actions): what a use into a package resolves to is kept until the package's target changes", async () => {
  const root = appRepository();
  const cache = tempCache();
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh", {});
    const rows = (answer: any) => answer.data.rows_read as number;
    const withoutRows = (answer: any) => {
      const { trace_id: _, data, ...rest } = answer;
      return { ...rest, data: { ...data, rows_read: null } };
    };
    const cold: any = await run("definition", RETRY_USE);
    assert.equal(cold.results[0].dependency.version, "1.2.3");
    const warm: any = await run("definition", RETRY_USE);
    assert.deepEqual(withoutRows(warm), withoutRows(cold));
    assert.ok(rows(warm) < rows(cold), `${rows(warm)} < ${rows(cold)}: kept`);

    // Another version: another target.
    upgradeFakeretry(root, "1.2.3", "1.3.0");
    await run("refresh", {});
    const upgraded: any = await run("definition", RETRY_USE);
    assert.equal(upgraded.results[0].dependency.version, "1.3.0");
    assert.match(upgraded.results[0].snippet, /now with jitter/);
    assert.equal(upgraded.results[0].start_line, 1);
    await run("definition", RETRY_USE);

    // The same version with other files, its target gone: the refresh builds it again in place
    // (the repository's own files and generation unchanged), and what was kept for the old
    // target is not served.
    writeFiles(root, {
      [`${SITE}/fakeretry/util/retry.py`]: `"""Retries."""


class Retry:
    """Retry configuration, moved down."""

    def __init__(self, total=10):
        self.total = total
`,
    });
    const target = [...Deno.readDirSync(join(cache, "deps"))].find((e) =>
      e.name.startsWith("pypi-fakeretry@1.3.0")
    )!;
    Deno.removeSync(join(cache, "deps", target.name), { recursive: true });
    const rebuilt: any = await run("refresh", {});
    assert.equal(
      rebuilt.data.reports[0].changed,
      false,
      "the repository's own target is as it was",
    );
    assert.equal(rebuilt.data.reports[0].dependencies.built, 1);
    const moved: any = await run("definition", RETRY_USE);
    assert.equal(moved.results[0].dependency.version, "1.3.0");
    assert.match(moved.results[0].snippet, /moved down/);
    assert.equal(moved.results[0].start_line, 4);
  }, cache);
});

Deno.test("dependencies (CLI, real process): Go module cache and Cargo registry; a path-restricted agent does not see packages", async () => {
  const { root, env } = nativeRepository();
  const cache = tempCache();
  const cli = async (args: string[], extra: Record<string, string> = {}) => {
    const out = await runCli(["query", ...args, "--json"], {
      cwd: root,
      env: { SEXTANT_CACHE_DIR: cache, ...env, ...extra },
    });
    assert.ok(out.code === 0 || out.code === 1, out.stderr);
    return JSON.parse(out.stdout);
  };
  await cli(["refresh"]);
  const go = await cli(["definition", "--path", "main.go", "--line", "10", "--column", "17"]);
  assert.deepEqual(
    go.results.map((hit: any) => [hit.path, hit.start_line, hit.source_kind]),
    [["$GOMODCACHE/github.com/!acme/kit@v1.4.0/client/client.go", 4, "dependency"]],
  );
  const rust = await cli(["definition", "--path", "src/main.rs", "--line", "4", "--column", "16"]);
  assert.deepEqual(
    rust.results.map((
      hit: any,
    ) => [hit.path.replace(/src\/index[^/]*\//, "src/INDEX/"), hit.source_kind]),
    [["$CARGO_HOME/registry/src/INDEX/tinyserde-1.0.3/src/lib.rs", "dependency"]],
  );
  const status = await cli(["status"]);
  const packages = status.data.repositories[0].dependencies.packages
    .map((p: any) => `${p.ecosystem}:${p.name}@${p.version}`).sort();
  assert.deepEqual(packages, ["cargo:tinyserde@1.0.3", "go:github.com/Acme/kit@v1.4.0"]);
  const human = await runCli(["query", "status"], {
    cwd: root,
    env: { SEXTANT_CACHE_DIR: cache, ...env },
  });
  assert.match(human.stdout, /dependencies 2 packages, \d+ files/);

  // An agent limited to the repository's own sources sees no package outside them.
  const workspace = tempDirectory({ prefix: "sextant-ws-" });
  Deno.writeTextFileSync(
    join(workspace, "sextant.yml"),
    `repositories:\n  - name: app\n    path: ${root}\nagents:\n  narrow:\n    token_env: NARROW\n    repositories: [app]\n    paths: { app: ["*.go", "src/**"] }\n`,
  );
  const narrow = await runCli([
    "query",
    "definition",
    "--path",
    "main.go",
    "--line",
    "10",
    "--column",
    "17",
    "--json",
    "--workspace",
    workspace,
    "--agent",
    "narrow",
    "--token",
    "secret-1",
  ], { env: { SEXTANT_CACHE_DIR: cache, NARROW: "secret-1", ...env } });
  const hidden = JSON.parse(narrow.stdout);
  assert.deepEqual(hidden.results, []);
  assert.ok(!narrow.stdout.includes("GOMODCACHE"), narrow.stdout);
  const narrowSearch = await runCli([
    "query",
    "search",
    "Dial opens a connection",
    "--kind",
    "dependency",
    "--json",
    "--workspace",
    workspace,
    "--agent",
    "narrow",
    "--token",
    "secret-1",
  ], { env: { SEXTANT_CACHE_DIR: cache, NARROW: "secret-1", ...env } });
  assert.deepEqual(JSON.parse(narrowSearch.stdout).results, []);
});

Deno.test("a package walk is bounded, never follows a link, and keeps the chooser's order", () => {
  const dir = Deno.realPathSync(tempDirectory({ prefix: "sextant-walk-" }));
  for (let i = 0; i < 60; i++) Deno.writeTextFileSync(join(dir, `f${i}.js`), "x");
  Deno.writeTextFileSync(join(dir, "index.d.ts"), "export {};\n");
  Deno.mkdirSync(join(dir, "node_modules/nested"), { recursive: true });
  Deno.writeTextFileSync(join(dir, "node_modules/nested/a.js"), "x");
  const outside = tempDirectory({ prefix: "sextant-walk-out-" });
  Deno.writeTextFileSync(join(outside, "secret.js"), "x");
  Deno.symlinkSync(outside, join(dir, "linked"));
  Deno.symlinkSync(join(outside, "secret.js"), join(dir, "alias.js"));
  const accept = (path: string) => (path.endsWith(".d.ts") ? 0 : path.endsWith(".js") ? 1 : null);
  const all = walkPackage(dir, { base: dir, accept });
  assert.equal(all.files.length, 61);
  assert.equal(all.files[0].path, "index.d.ts");
  assert.equal(all.skipped.symlink, 2);
  assert.ok(!all.files.some((f) => f.path.includes("nested") || f.path.includes("secret")));
  const capped = walkPackage(dir, { base: dir, accept, limits: { packageFiles: 10 } });
  assert.equal(capped.files.length, 10);
  assert.equal(capped.files[0].path, "index.d.ts");
  assert.equal(capped.skipped.file_cap, 51);
  const walked = walkPackage(dir, { base: dir, accept, limits: { walkEntries: 20 } });
  assert.equal(walked.capped, true);
  assert.equal(walked.skipped.walk_cap, 1);
  assert.ok(walked.files.length <= 20);
});

Deno.test("dependencies (CLI, real process): a language server's location in an indexed package is a dependency hit", async () => {
  const root = appRepository({ marker: "lsp" });
  const workspace = tempDirectory({ prefix: "sextant-ws-" });
  Deno.writeTextFileSync(
    join(workspace, "sextant.yml"),
    // A loaded machine can take more than the default 10 s for the first answer of a server
    // that has just loaded the project.
    `repositories:\n  - name: app\n    path: ${root}\nlsp:\n  typescript: ${
      JSON.stringify(typescriptServer({ request_timeout_ms: 60_000 }))
    }\n`,
  );
  const cache = tempCache();
  const cli = async (...args: string[]) => {
    const out = await runCli(["query", ...args, "--workspace", workspace, "--json"], {
      env: { SEXTANT_CACHE_DIR: cache },
    });
    assert.ok(out.code === 0 || out.code === 1, out.stderr);
    return JSON.parse(out.stdout);
  };
  await cli("refresh");
  const answer = await cli(
    "definition",
    "--path",
    ROUTER_USE.path,
    "--line",
    `${ROUTER_USE.line}`,
    "--column",
    `${ROUTER_USE.column}`,
  );
  assert.equal(answer.provenance.backend, "lsp:typescript", JSON.stringify(answer.provenance));
  assert.deepEqual(
    answer.results.map((hit: any) => [hit.path, hit.name_line, hit.source_kind]),
    [["node_modules/tinylib/dist/index.d.ts", 2, "dependency"]],
  );
  assert.equal(answer.results[0].dependency.name, "tinylib");
  assert.equal(answer.results[0].signature !== undefined, true);
  assert.deepEqual([...Deno.readDirSync(MARKER_DIRECTORY)], [], "no package code ran");
});

Deno.test("dependencies (daemon, real process): a refresh builds every package's target without failures, and a definition leads into one", async () => {
  const root = appRepository();
  const daemon = await startDaemon({ workspace: root });
  const client = await DaemonClient.connect(daemon.socket);
  try {
    const refreshed: any = await client.request("refresh", {});
    const summary = refreshed.data.reports[0].dependencies;
    assert.equal(summary.packages, 7, JSON.stringify(summary));
    assert.equal(summary.built, 7, JSON.stringify(summary));
    assert.equal(summary.problems.failed, undefined, JSON.stringify(summary));
    assert.equal(summary.error, undefined, JSON.stringify(summary));
    const answer: any = await client.request("definition", RETRY_USE);
    assert.deepEqual(
      answer.results.map((hit: any) => [hit.path, hit.source_kind]),
      [[`${SITE}/fakeretry/util/retry.py`, "dependency"]],
    );
  } finally {
    client.close();
    await daemon.stop();
  }
});
