/**
 * Package roots from the manifests a repository declares (read as text, never executed): Python
 * module names start at a `src/` layout's root, so `symbols pkg.mod.Name` finds what its users
 * import as `pkg.mod.Name`; a change of root re-parses the files it names.
 */
import assert from "node:assert/strict";
import {
  cargoCrate,
  packageJsonRoot,
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
  assert.equal(packageRootOf(roots, "libs/tool/src/tool/cli.py")?.dir, "libs/tool/src");
  assert.equal(packageRootOf(roots, "src/app/models.py")?.dir, "src");
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

Deno.test("Cargo.toml: the crate name as code writes it, and its source directory", () => {
  assert.deepEqual(cargoCrate('[package]\nname = "serde-json"\nversion = "1.0.0"\n'), {
    name: "serde_json",
    dir: "src",
  });
  assert.deepEqual(
    cargoCrate('[package]\nname = "x"\n\n[lib]\nname = "core_x"\npath = "lib/root.rs"\n'),
    { name: "core_x", dir: "lib" },
  );
  // A workspace manifest names no crate.
  assert.equal(cargoCrate('[workspace]\nmembers = ["a", "b"]\n'), null);
});

Deno.test("package.json: the name, and the source its entry point is built from", () => {
  const paths = new Set([
    "packages/ledger/package.json",
    "packages/ledger/src/index.ts",
    "packages/ledger/src/tax/rates.ts",
    "web/package.json",
    "web/lib/main.js",
  ]);
  const built = packageJsonRoot(
    JSON.stringify({
      name: "@acme/ledger",
      exports: {
        ".": { import: "./dist/index.js" },
        "./rates": { types: "./dist/types/tax/rates.d.ts", import: "./dist/tax/rates.js" },
        "./package.json": "./package.json",
      },
    }),
    "packages/ledger",
    paths,
  );
  assert.deepEqual(built, {
    dir: "packages/ledger/src",
    family: "javascript",
    name: "@acme/ledger",
    exports: {
      "packages/ledger/src/index.ts": "@acme/ledger",
      "packages/ledger/src/tax/rates.ts": "@acme/ledger/rates",
    },
  });
  const direct = packageJsonRoot(
    JSON.stringify({ name: "web", main: "lib/main.js" }),
    "web",
    paths,
  );
  assert.deepEqual(direct?.exports, { "web/lib/main.js": "web" });
  assert.equal(direct?.dir, "web/lib");
  // No entry (an application, a workspace root), no name, broken JSON: no root.
  assert.equal(packageJsonRoot('{"name":"mono","workspaces":["packages/*"]}', "", paths), null);
  assert.equal(packageJsonRoot('{"name":"app","main":"dist/server.js"}', "", paths), null);
  assert.equal(packageJsonRoot('{"private":true}', "", paths), null);
  assert.equal(packageJsonRoot("{", "", paths), null);
});

Deno.test("a crate and a package are named as their users import them", async () => {
  const root = fixtureRepository({
    "Cargo.toml": '[package]\nname = "tally-core"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod parse;\n\npub fn version() -> u32 {\n    1\n}\n",
    "src/parse.rs": "pub struct Parser;\n\nimpl Parser {\n    pub fn run(&self) -> u32 {\n" +
      "        crate::version()\n    }\n}\n",
    "web/package.json": JSON.stringify({
      name: "@acme/ledger",
      exports: {
        ".": "./dist/index.js",
        "./tax": "./dist/tax/index.js",
        "./fees": "./dist/tax/fees.js",
      },
    }),
    "web/src/index.ts": 'export { vatRate } from "./tax";\nexport function total(): number {\n' +
      "  return 1;\n}\n",
    "web/src/tax/index.ts": "export function vatRate(): number {\n  return 0.2;\n}\n",
    "web/src/tax/fees.ts": "export function stampFee(): number {\n  return 2;\n}\n",
    "web/src/tax/util.ts": "export function round(n: number): number {\n  return n;\n}\n",
    "web/tests/tax.test.ts": 'import { vatRate } from "../src/tax";\nvatRate();\n',
  });
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const names = async (query: string) => // One name per definition site kind (a Rust struct and its impl share one): each once.
    [...new Set((await run("symbols", { query })).results.map((hit) => hit.symbol))];
    assert.deepEqual(await names("tally_core::parse::Parser"), ["tally_core::parse::Parser"]);
    assert.deepEqual(await names("tally_core::version"), ["tally_core::version"]);
    assert.deepEqual(await names("@acme/ledger.total"), ["@acme/ledger.total"]);
    assert.deepEqual(await names("@acme/ledger/tax.vatRate"), ["@acme/ledger/tax.vatRate"]);
    // A subpath export names its file; a file no export names reads as a subpath pattern would.
    assert.deepEqual(await names("@acme/ledger/fees.stampFee"), ["@acme/ledger/fees.stampFee"]);
    assert.deepEqual(await names("@acme/ledger/tax/util.round"), ["@acme/ledger/tax/util.round"]);
    const method = await run("definition", { symbol: "tally_core::parse::Parser::run" });
    assert.deepEqual(method.results.map((hit) => hit.path), ["src/parse.rs"]);
    // Outside the package's source root, files keep their paths.
    const use = await run("definition", { path: "web/tests/tax.test.ts", line: 2, column: 1 });
    assert.deepEqual(use.results.map((hit) => hit.symbol), [
      "@acme/ledger/tax.vatRate",
    ]);

    // Without the manifests, the same unchanged files are parsed again and named as before.
    Deno.removeSync(`${root}/Cargo.toml`);
    Deno.removeSync(`${root}/web/package.json`);
    git(root, "add", "-A");
    await run("refresh");
    assert.deepEqual(await names("crate::parse::Parser"), ["crate::parse::Parser"]);
    assert.deepEqual(await names("web/src/tax/index.vatRate"), ["web/src/tax/index.vatRate"]);
  });
});
