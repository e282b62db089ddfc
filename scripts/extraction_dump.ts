/**
 * Dumps what extraction yields for every file of a checkout that has structure: one JSON line
 * per file (path, language, and the symbols, relations, chunks and diagnostics of
 * `extractStructure`), in path order. Two dumps taken before and after a change to the query
 * files, the grammars or the extractor diff line by line, so "nothing changed" is checkable.
 *
 *   deno run -A scripts/extraction_dump.ts --path DIR [--language typescript]... > dump.jsonl
 *
 * Files are the checkout's `git ls-files` (or every file under DIR when it is not a git
 * working tree), parsed in this process with the code a parse Worker runs.
 */
import { parseArgs } from "node:util";
import { extractionGrammars } from "./_extraction_grammars.ts";
import {
  moduleRootFor,
  readPackageRoots,
  repositoryManifests,
} from "../src/indexer/package_roots.ts";
import { join, relative } from "node:path";
import { extractStructure, looksMinified, parseForExtraction } from "../src/indexer/extract.ts";
import { isLanguage, languageForPath, loadLanguageTable } from "../src/indexer/languages.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    path: { type: "string" },
    language: { type: "string", multiple: true, default: [] },
  },
});
if (!values.path) {
  console.error("usage: extraction_dump.ts --path DIR [--language L]...");
  Deno.exit(2);
}
const root = Deno.realPathSync(values.path);
const wanted = new Set(values.language);
const table = loadLanguageTable();

/** Repository paths under the root: git's list when it is a working tree, else a walk. */
function listFiles(): string[] {
  const git = new Deno.Command("git", {
    args: ["-C", root, "ls-files", "-z"],
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  if (git.success) {
    return new TextDecoder().decode(git.stdout).split("\0").filter((p) => p !== "").sort();
  }
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const full = join(dir, entry.name);
      if (entry.isDirectory) walk(full);
      else if (entry.isFile) out.push(relative(root, full));
    }
  };
  walk(root);
  return out.sort();
}

const files = listFiles();
const roots = readPackageRoots(repositoryManifests(root, files));

const grammarOf = await extractionGrammars(table);

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
for (const path of files) {
  const language = languageForPath(table, path);
  if (!isLanguage(language)) continue;
  if (wanted.size > 0 && !wanted.has(language)) continue;
  let text: string;
  try {
    const bytes = Deno.readFileSync(join(root, path));
    if (bytes.subarray(0, 8192).includes(0)) continue;
    text = decoder.decode(bytes);
  } catch {
    continue;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (looksMinified(text)) continue;
  const { parser, grammar } = await grammarOf(language);
  const tree = parseForExtraction(parser, text, { rules: grammar.rules });
  if (!tree) continue;
  try {
    const packageRoot = moduleRootFor(roots, path, language);
    const output = extractStructure({ tree, text, path, grammar, packageRoot });
    Deno.stdout.writeSync(encoder.encode(JSON.stringify({ path, language, ...output }) + "\n"));
  } finally {
    tree.delete();
  }
}
