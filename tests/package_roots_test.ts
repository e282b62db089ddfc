/**
 * Package roots from the manifests a repository declares (read as text, never executed): Python
 * module names start at a `src/` layout's root, so `symbols pkg.mod.Name` finds what its users
 * import as `pkg.mod.Name`; a change of root re-parses the files it names.
 */
import assert from "node:assert/strict";
import {
  packageRootOf,
  pyprojectRoots,
  readPackageRoots,
  setupCfgRoots,
} from "../src/indexer/package_roots.ts";
import { fixtureRepository, git, withWorkspace, writeFiles } from "./_helpers.ts";

Deno.test("pyproject.toml: setuptools, Poetry, Hatch and PDM source directories", () => {
  assert.deepEqual(
    pyprojectRoots('[tool.setuptools.packages.find]\nwhere = ["src"]  # the src layout\n'),
    ["src"],
  );
  assert.deepEqual(pyprojectRoots('[tool.setuptools]\npackage-dir = {"" = "lib"}\n'), ["lib"]);
  assert.deepEqual(
    pyprojectRoots(
      '[tool.poetry]\nname = "x"\npackages = [\n  { include = "app", from = "source" },\n]\n',
    ),
    ["source"],
  );
  assert.deepEqual(
    pyprojectRoots('[tool.hatch.build.targets.wheel]\npackages = ["src/app"]\n'),
    ["src"],
  );
  assert.deepEqual(pyprojectRoots('[tool.pdm.build]\npackage-dir = "src"\n'), ["src"]);
  assert.deepEqual(pyprojectRoots('[project]\nname = "flat"\n'), []);
});

Deno.test("setup.cfg: package_dir and packages.find where", () => {
  assert.deepEqual(setupCfgRoots("[options]\npackage_dir =\n    =src\npackages = find:\n"), [
    "src",
  ]);
  assert.deepEqual(setupCfgRoots("[options.packages.find]\nwhere = lib\n"), ["lib"]);
  assert.deepEqual(setupCfgRoots("[options]\npackage_dir =\n    app=src/app\n"), []);
});

Deno.test("readPackageRoots: declared, static src layout, nested projects, no escapes", () => {
  const files: Record<string, string> = {
    "pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["src"]\n',
    "src/app/__init__.py": "",
    "libs/tool/setup.py": "",
    "libs/tool/src/tool/__init__.py": "",
    "other/setup.cfg": "[options.packages.find]\nwhere = ../../etc\n",
    "flat/setup.py": "",
    "flat/src/__init__.py": "",
  };
  const roots = readPackageRoots({
    paths: Object.keys(files),
    read: (path) => files[path] ?? null,
  });
  assert.deepEqual(roots.map((root) => root.dir), ["libs/tool/src", "src"]);
  assert.equal(packageRootOf(roots, "libs/tool/src/tool/cli.py"), "libs/tool/src");
  assert.equal(packageRootOf(roots, "src/app/models.py"), "src");
  assert.equal(packageRootOf(roots, "tests/test_app.py"), null);
});

Deno.test("a src layout declared in pyproject.toml names modules from its root", async () => {
  const root = fixtureRepository({
    "pyproject.toml":
      '[project]\nname = "shop"\n\n[tool.setuptools.packages.find]\nwhere = ["src"]\n',
    "src/shop/__init__.py": "",
    "src/shop/sessions.py": "class Session:\n    def send(self):\n        return 1\n",
    "tests/test_sessions.py":
      "from shop.sessions import Session\n\n\ndef test_send():\n    assert Session().send() == 1\n",
  });
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const found = await run("symbols", { query: "shop.sessions.Session" });
    assert.deepEqual(found.results.map((hit) => `${hit.path} ${hit.symbol}`), [
      "src/shop/sessions.py shop.sessions.Session",
    ]);
    const method = await run("definition", { symbol: "shop.sessions.Session.send" });
    assert.deepEqual(method.results.map((hit) => `${hit.path}:${hit.start_line}`), [
      "src/shop/sessions.py:2",
    ]);
    const use = await run("definition", { path: "tests/test_sessions.py", line: 5, column: 12 });
    assert.deepEqual(use.results.map((hit) => hit.symbol), ["shop.sessions.Session"]);

    // Without the declaration, and with `src/` a package itself, `src` is no root: the files
    // under it, unchanged, are parsed again and named from the repository root.
    writeFiles(root, { "pyproject.toml": '[project]\nname = "shop"\n', "src/__init__.py": "" });
    git(root, "add", "-A");
    await run("refresh");
    const flat = await run("symbols", { query: "Session" });
    assert.deepEqual(flat.results.map((hit) => hit.symbol), ["src.shop.sessions.Session"]);
  });
});
