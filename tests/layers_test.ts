/**
 * The layering of `src/`, read from the code: every static import (`import`,
 * `import type`, `export … from`, `import("…")` in types, Worker URLs) must
 * point to the importer's own layer or one to its left:
 *
 *   protocol ← engine ← store ← indexer ← (workspace, deps) ← (search, grep, resolver, lsp)
 *     ← actions ← (daemon, cli, mcp) ← main
 *
 * Only `src/store/` holds SQL or `node:sqlite`; `src/engine/` stays pure.
 * Files are classified by folder; a folder missing from the table fails the
 * test, so a new folder is placed deliberately.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";

/** Folder (under `src/`) → layer; a module may import from its layer or lower. */
const LAYERS: Record<string, number> = {
  protocol: 0,
  engine: 1,
  store: 2,
  indexer: 3,
  workspace: 4,
  deps: 4,
  search: 5,
  grep: 5,
  resolver: 5,
  lsp: 5,
  actions: 6,
  daemon: 7,
  cli: 7,
  mcp: 7,
  // `src/main.ts` itself.
  main: 8,
};

const SRC = resolve(new URL("../src", import.meta.url).pathname);

/** Every module specifier a TypeScript source imports, re-exports or loads as a Worker. */
export function importsOf(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    // import … from "x", import type … from "x", export … from "x" (clauses hold no quotes)
    /(?:^|[\n;])\s*(?:import|export)\s+(?:type\s+)?[^;"'`]*?\bfrom\s*["']([^"']+)["']/g,
    // import "x" (side effects only)
    /(?:^|[\n;])\s*import\s*["']([^"']+)["']/g,
    // import("x"), also in type positions
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
    // new Worker(new URL("./x.ts", import.meta.url))
    /new URL\(\s*["']([^"']+\.ts)["']\s*,\s*import\.meta\.url\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) found.push(match[1]);
  }
  return found;
}

/** The layer folder of a file under `src/` (`main` for `src/main.ts`). */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split("/");
  return parts.length === 1 ? "main" : parts[0];
}

function sourceFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of Deno.readDirSync(directory)) {
    const path = join(directory, entry.name);
    if (entry.isDirectory) files.push(...sourceFiles(path));
    else if (entry.name.endsWith(".ts")) files.push(path);
  }
  return files.sort();
}

Deno.test("importsOf finds every kind of static import", () => {
  const source = [
    'import { a } from "./a.ts";',
    'import type {\n  B,\n  C,\n} from "../b/c.ts";',
    'export { d } from "./d.ts";',
    'export type * from "./e.ts";',
    'import "./side.ts";',
    'type F = import("../f.ts").F;',
    'new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });',
    "const s = \"import x from 'not-a-module'\";",
  ].join("\n");
  assert.deepEqual(importsOf(source).sort(), [
    "../b/c.ts",
    "../f.ts",
    "./a.ts",
    "./d.ts",
    "./e.ts",
    "./side.ts",
    "./worker.ts",
  ]);
});

Deno.test("src/ imports point down the layers; SQL stays in src/store/; the engine is pure", () => {
  const problems: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    const name = relative(SRC, file);
    if (!(from in LAYERS)) {
      problems.push(`${name}: folder '${from}' has no layer in LAYERS`);
      continue;
    }
    const source = Deno.readTextFileSync(file);
    for (const specifier of importsOf(source)) {
      if (specifier === "node:sqlite" && from !== "store") {
        problems.push(`${name}: imports node:sqlite outside src/store/`);
      }
      if (!specifier.startsWith(".")) continue;
      const target = resolve(dirname(file), specifier);
      if (!target.startsWith(`${SRC}/`)) {
        problems.push(`${name}: imports '${specifier}' from outside src/`);
        continue;
      }
      const to = folderOf(target);
      if (!(to in LAYERS)) {
        problems.push(`${name}: imports '${specifier}' from folder '${to}' that has no layer`);
      } else if (LAYERS[to] > LAYERS[from]) {
        problems.push(`${name} (${from}) imports ${relative(SRC, target)} (${to}): an upward edge`);
      }
    }
    if (from !== "store" && /\.prepare\(/.test(source)) {
      problems.push(`${name}: prepares SQL outside src/store/`);
    }
    if (
      from === "engine" && /\bDeno\.|\bDate\.now\(|\bnew Date\(|performance\.now\(/.test(source)
    ) {
      problems.push(`${name}: the engine touches Deno, the clock or the file system`);
    }
  }
  assert.deepEqual(problems, []);
});
