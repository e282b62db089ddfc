/**
 * The language registry: every manifest loads and agrees with its grammar (queries compile,
 * node types exist), and a wrong manifest is refused with the file and key named.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Language as Grammar, Parser, Query } from "web-tree-sitter";
import {
  CORE_WASM,
  GRAMMARS_DIR,
  languageNamed,
  languageOfPath,
  LANGUAGES,
  loadLanguageTable,
  readGrammarQueries,
  readGrammarWasm,
} from "../src/indexer/languages.ts";
import { tempDirectory } from "./_helpers.ts";

Deno.test("registry: each language's queries compile and its manifest names only node types of its grammar", async () => {
  await Parser.init({ wasmBinary: Deno.readFileSync(CORE_WASM) });
  const table = loadLanguageTable();
  assert.deepEqual([...table.grammars.keys()].sort(), [...LANGUAGES].sort());
  for (const grammar of table.grammars.values()) {
    const language = await Grammar.load(readGrammarWasm(grammar));
    const query = new Query(language, readGrammarQueries(grammar));
    assert.ok(query.patternCount() > 0, grammar.language);
    query.delete();
    const types = new Set<string>();
    for (let id = 0; id < language.nodeTypeCount; id++) {
      const type = language.nodeTypeForId(id);
      if (type && language.nodeTypeIsNamed(id)) types.add(type);
    }
    const named = [
      ...Object.values(grammar.nodes).flat(),
      ...(grammar.grep ? [...grammar.grep.literalKinds, ...grammar.grep.codeInLiteralKinds] : []),
    ];
    const unknown = named.filter((type) => !types.has(type));
    assert.deepEqual(unknown, [], `${grammar.language}: not node types of its grammar`);
  }
});

Deno.test("registry: languageOfPath knows every structured language and no text language", () => {
  const cases: Record<string, string | null> = {
    "src/App.kt": "kotlin",
    "build.gradle.kts": "kotlin",
    "src/Main.scala": "scala",
    "lib/a.rb": "ruby",
    "Rakefile": "ruby",
    "a.cs": "c_sharp",
    "include/x.h": "cpp",
    "init.lua": "lua",
    "app.tsx": "tsx",
    "README.md": null,
    "Makefile": null,
    "image.png": null,
  };
  for (const [path, language] of Object.entries(cases)) {
    assert.equal(languageOfPath(path), language, path);
  }
  assert.equal(languageNamed("py"), "python");
  assert.equal(languageNamed("TS"), "typescript");
  assert.equal(languageNamed("golang"), "go");
  assert.equal(languageNamed("kotlin"), "kotlin");
  assert.equal(languageNamed("cobol"), null);
});

/** A copy of a directory tree. */
function copySync(from: string, to: string): void {
  Deno.mkdirSync(to, { recursive: true });
  for (const entry of Deno.readDirSync(from)) {
    if (entry.isDirectory) copySync(join(from, entry.name), join(to, entry.name));
    else Deno.copyFileSync(join(from, entry.name), join(to, entry.name));
  }
}

/** A copy of `grammars/` with one file rewritten by `edit`, loaded without the cache. */
function loadEdited(file: string, edit: (json: Record<string, unknown>) => void | string): void {
  const dir = join(tempDirectory({ prefix: "sextant-grammars-" }), "grammars");
  copySync(GRAMMARS_DIR, dir);
  const path = join(dir, file);
  const json = JSON.parse(Deno.readTextFileSync(path));
  const replaced = edit(json);
  Deno.writeTextFileSync(path, typeof replaced === "string" ? replaced : JSON.stringify(json));
  loadLanguageTable(dir);
}

Deno.test("registry: a wrong manifest is refused with its file and key", () => {
  const refused = (
    file: string,
    edit: (json: Record<string, unknown>) => void | string,
    message: string,
  ) => assert.throws(() => loadEdited(file, edit), { name: "SyntaxError", message });
  refused(
    "go/manifest.json",
    (json) => void ((json.rules as Record<string, unknown>).module = "package"),
    "Cannot load grammar manifest grammars/go/manifest.json: key 'rules.module' is not one of python, path, rust, declared, none",
  );
  refused(
    "go/manifest.json",
    (json) => void (json.extension = [".go"]),
    "Cannot load grammar manifest grammars/go/manifest.json: key 'extension' is not one of language, wasm, extensions, filenames, aliases, queries, rules, nodes, grep, wasmImportAliases, comment",
  );
  refused(
    "go/manifest.json",
    (json) => void (json.language = "golang"),
    "Cannot load grammar manifest grammars/go/manifest.json: key 'language' is not one of bash, c, c_sharp, cpp, go, java, javascript, kotlin, lua, php, python, ruby, rust, scala, swift, tsx, typescript",
  );
  refused(
    "go/manifest.json",
    (json) => void (json.language = "rust"),
    "Cannot load grammar manifest grammars/go/manifest.json: key 'language' is 'rust' but the folder is 'go'",
  );
  refused(
    "go/manifest.json",
    (json) => void (json.queries = ["tags.scm", "../_shared/missing.scm"]),
    "Cannot load grammar manifest grammars/go/manifest.json: key 'queries' names ../_shared/missing.scm, which is not a file",
  );
  refused(
    "go/manifest.json",
    (json) => void (json.extensions = [".go", ".rs"]),
    "Cannot load grammar manifest grammars/rust/manifest.json: key 'extensions' claims '.rs', already claimed by go",
  );
  refused(
    "java/manifest.json",
    (json) => void ((json.rules as Record<string, unknown>).public = "(public"),
    "Cannot load grammar manifest grammars/java/manifest.json: key 'rules.public' is not a valid regular expression",
  );
  refused(
    "go/manifest.json",
    (json) => void (json.nodes = { comments: "comment" }),
    "Cannot load grammar manifest grammars/go/manifest.json: key 'nodes.comments' is not a list of strings",
  );
  refused(
    "lua/manifest.json",
    (json) => void (json.wasm = "../../@tree-sitter-grammars/tree-sitter-lua/tree-sitter-lua.wasm"),
    "Cannot load grammar manifest grammars/lua/manifest.json: key 'wasm' is '../../@tree-sitter-grammars/tree-sitter-lua/tree-sitter-lua.wasm', not a path '<npm package>/<file>.wasm' under node_modules",
  );
  refused(
    "go/manifest.json",
    (json) => void (json.wasm = "tree-sitter-go/tree-sitter-golang.wasm"),
    "Cannot load grammar manifest grammars/go/manifest.json: key 'wasm' names tree-sitter-go/tree-sitter-golang.wasm, which is not a file under node_modules",
  );
  refused(
    "text.json",
    (json) => void ((json.languages as Record<string, unknown>[])[0].chunking = "paragraphs"),
    "Cannot load text language table grammars/text.json: key 'languages[0].chunking' is not one of headings, lines",
  );
});

Deno.test("registry: the union and the manifests agree: a language without a manifest is refused", () => {
  const dir = join(tempDirectory({ prefix: "sextant-grammars-" }), "grammars");
  copySync(GRAMMARS_DIR, dir);
  Deno.removeSync(join(dir, "lua"), { recursive: true });
  assert.throws(() => loadLanguageTable(dir), {
    name: "SyntaxError",
    message: "Cannot load grammars: language 'lua' has no manifest (grammars/lua/manifest.json)",
  });
});
