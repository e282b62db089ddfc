/**
 * The parse Worker's CPU work on one checkout, in this process and on one thread, timed by
 * stage: tree-sitter parse, extraction (`extractStructure`: query, matches, names, relations,
 * chunks) and the stored form (`fileRows`: vectors, packing, deflate). Where the cold index's
 * Worker time goes, without the pool, the writer or the load of a second Worker. With
 * `--cpu-prof` on the deno command line the profile splits the stages further.
 *
 *   deno run -A scripts/_bench_extract.ts --path DIR [--language python]... [--repeat N]
 *
 * Prints one JSON line: files, bytes, wall milliseconds per stage, CPU milliseconds of all
 * stages, and the process's VmHWM.
 */
import { parseArgs } from "node:util";
import { extractionGrammars } from "./_extraction_grammars.ts";
import { join } from "node:path";
import process from "node:process";
import { extractStructure, looksMinified, parseForExtraction } from "../src/indexer/extract.ts";
import { fileRows } from "../src/indexer/file_rows.ts";
import {
  moduleRootFor,
  readPackageRoots,
  repositoryManifests,
} from "../src/indexer/package_roots.ts";
import {
  isLanguage,
  type Language,
  languageForPath,
  loadLanguageTable,
} from "../src/indexer/languages.ts";
import { processRss } from "./_bench_stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    path: { type: "string" },
    language: { type: "string", multiple: true, default: [] },
    repeat: { type: "string", default: "1" },
  },
});
if (!values.path) {
  console.error("usage: _bench_extract.ts --path DIR [--language L]... [--repeat N]");
  Deno.exit(2);
}
const root = Deno.realPathSync(values.path);
const wanted = new Set(values.language);
const table = loadLanguageTable();
const git = new Deno.Command("git", { args: ["-C", root, "ls-files", "-z"], stdout: "piped" })
  .outputSync();
const files = new TextDecoder().decode(git.stdout).split("\0").filter((p) => p !== "").sort();
const roots = readPackageRoots(repositoryManifests(root, files));

const grammarOf = await extractionGrammars(table);

const decoder = new TextDecoder("utf-8", { fatal: true });
const inputs: { path: string; language: Language; text: string; bytes: Uint8Array }[] = [];
for (const path of files) {
  const language = languageForPath(table, path);
  if (!isLanguage(language) || (wanted.size > 0 && !wanted.has(language))) continue;
  let bytes: Uint8Array;
  let text: string;
  try {
    bytes = Deno.readFileSync(join(root, path));
    if (bytes.subarray(0, 8192).includes(0)) continue;
    text = decoder.decode(bytes);
  } catch {
    continue;
  }
  if (text.charCodeAt(0) === 0xfeff) continue;
  if (looksMinified(text)) continue;
  inputs.push({ path, language, text, bytes });
}

/** CPU milliseconds of this process (every thread: V8's helpers too), which the load of other
 * processes inflates far less than wall time. */
function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
const ms = { parse: 0, extract: 0, rows: 0, delete: 0 };
const cpuStart = cpuMs();
let symbols = 0, relations = 0, chunks = 0, bytes = 0;
for (let round = 0; round < Number(values.repeat); round++) {
  for (const input of inputs) {
    const { parser, grammar } = await grammarOf(input.language);
    let at = performance.now();
    // As the Worker does: a deadline checked by the parse's progress callback.
    const deadline = at + 10_000;
    const tree = parseForExtraction(parser, input.text, {
      rules: grammar.rules,
      progressCallback: () => performance.now() > deadline,
    });
    ms.parse += performance.now() - at;
    if (!tree) continue;
    at = performance.now();
    const packageRoot = moduleRootFor(roots, input.path, input.language);
    const output = extractStructure({
      tree,
      text: input.text,
      path: input.path,
      grammar,
      packageRoot,
    });
    ms.extract += performance.now() - at;
    at = performance.now();
    fileRows({ output, text: input.text, bytes: input.bytes, root: tree.rootNode });
    ms.rows += performance.now() - at;
    at = performance.now();
    tree.delete();
    ms.delete += performance.now() - at;
    symbols += output.symbols.length;
    relations += output.relations.length;
    chunks += output.chunks.length;
    bytes += input.bytes.length;
  }
}
const round1 = (n: number) => Math.round(n);
console.log(JSON.stringify({
  files: inputs.length,
  bytes,
  symbols,
  relations,
  chunks,
  ms: Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, round1(v)])),
  /** All stages; a stage's share is its share of `ms` (reading the clock per stage costs). */
  cpu_ms: round1(cpuMs() - cpuStart),
  peak_rss_mb: Math.round(processRss(Deno.pid).peak / 2 ** 20),
  load: Deno.loadavg()[0],
}));
