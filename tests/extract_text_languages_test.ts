/** Search-only text languages and grammar loading details of the language table. */
import assert from "node:assert/strict";
import { languageForPath, loadLanguageTable, renameWasmImports } from "../src/indexer/languages.ts";
import { fixtureRepository, openTarget, withWorkspace } from "./_helpers.ts";

Deno.test("text languages: config files by name, build files, docs and data by extension", () => {
  const table = loadLanguageTable();
  const cases: Record<string, string | null> = {
    "Makefile": "makefile",
    "go.mod": "go-module",
    "sub/go.work": "go-module",
    "sub/GNUmakefile": "makefile",
    "rules.mk": "makefile",
    "CMakeLists.txt": "cmake",
    "BUILD.bazel": "build-config",
    ".zshrc": "shell-config",
    ".gitignore": "shell-config",
    ".editorconfig": "ini",
    "setup.cfg": "ini",
    "api.proto": "protobuf",
    "schema.graphql": "graphql",
    "main.tf": "terraform",
    "Dockerfile": "dockerfile",
    "docs/guide.md": "markdown",
    "notes.txt": "text",
    "lib/server.go": "go",
    "src/lib.rs": "rust",
    "include/fmt/core.h": "cpp",
    "src/jv.c": "c",
    "A.java": "java",
    "Program.cs": "c_sharp",
    "image.png": null,
  };
  for (const [path, language] of Object.entries(cases)) {
    assert.equal(languageForPath(table, path), language, path);
  }
});

Deno.test("text languages: a Makefile and a zshrc are searchable text without symbols", async () => {
  const root = fixtureRepository({
    "Makefile": "build:\n\tcargo build --release\n",
    ".zshrc": "export EDITOR=vim\nalias gs='git status'\n",
  });
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    const db = openTarget(workspace);
    try {
      const files = db.prepare("SELECT path, language FROM source_files ORDER BY path").all()
        .map((row) => `${row.path}:${row.language}`);
      assert.deepEqual(files, [".zshrc:shell-config", "Makefile:makefile"]);
      assert.equal(
        (db.prepare("SELECT count(*) AS n FROM code_symbols").get() as { n: number }).n,
        0,
      );
    } finally {
      db.close();
    }
    const hits = await run("search", { query: "cargo build release" });
    assert.ok(hits.results.some((hit) => hit.path === "Makefile"), "the Makefile is found");
  });
});

/** A minimal wasm module importing `env.isalpha` and `env.memory`. */
function moduleWithImports(): Uint8Array {
  const name = (text: string) => [text.length, ...new TextEncoder().encode(text)];
  const types = [1, 0x60, 1, 0x7f, 1, 0x7f]; // one type: (i32) -> i32
  const imports = [
    2,
    ...name("env"),
    ...name("isalpha"),
    0,
    0, // function of type 0
    ...name("env"),
    ...name("memory"),
    2,
    0,
    1, // memory, no maximum, minimum 1
  ];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    1,
    0,
    0,
    0,
    1,
    types.length,
    ...types,
    2,
    imports.length,
    ...imports,
  ]);
}

Deno.test("renameWasmImports renames imported functions and keeps the module valid", () => {
  const renamed = renameWasmImports(moduleWithImports(), { isalpha: "iswalpha" });
  const module = new WebAssembly.Module(new Uint8Array(renamed));
  assert.deepEqual(
    WebAssembly.Module.imports(module).map((entry) => `${entry.module}.${entry.name}`),
    ["env.iswalpha", "env.memory"],
  );
});
