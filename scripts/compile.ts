/**
 * `deno task compile`: one binary `dist/sextant` with the grammars, the
 * tree-sitter wasm files and the Workers (parse, query, refresh) embedded, and the V8 flags of
 * the serving processes (`_serving_flags.ts`).
 *
 * `deno compile` downloads its runtime (`denort`) unless `DENORT_BIN` names a
 * local copy; where neither works, this fails with deno's own message.
 */
import { join, relative } from "node:path";
import { loadLanguageTable, wasmPath } from "../src/indexer/languages.ts";
import { SERVING_V8_FLAGS, v8FlagsArgument } from "./_serving_flags.ts";

const root = new URL("../", import.meta.url).pathname;
const table = loadLanguageTable();
const wasmFiles = [...table.grammars.values()].map((g) => relative(root, wasmPath(g)));
const includes = [
  "grammars",
  "src/indexer/parse_worker.ts",
  "src/daemon/query_worker.ts",
  "src/workspace/refresh_worker.ts",
  "node_modules/web-tree-sitter/tree-sitter.wasm",
  ...wasmFiles,
].flatMap((path) => ["--include", path]);

const args = [
  "compile",
  "--unstable-worker-options",
  "--allow-all",
  // Baked into the binary: every process it runs (daemon, query, mcp) starts with them.
  ...v8FlagsArgument(SERVING_V8_FLAGS),
  ...includes,
  "--output",
  join("dist", "sextant"),
  "src/main.ts",
  ...Deno.args,
];
console.error(`deno ${args.join(" ")}`);
const { code } = await new Deno.Command(Deno.execPath(), {
  args,
  cwd: root,
  stdout: "inherit",
  stderr: "inherit",
}).output();
Deno.exit(code);
