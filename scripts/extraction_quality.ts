/**
 * Extraction quality (issue 3): compares the definitions Sextant extracts from
 * a checkout with universal-ctags' on the same files, per language, and
 * measures parse throughput per language for one Worker.
 *
 *   deno run -A --unstable-worker-options scripts/extraction_quality.ts --path DIR
 *       [--language go]... [--sample 20] [--tolerance 2] [--no-throughput] [--json]
 *
 * - Sextant side: the checkout is indexed through the public code (a
 *   `Workspace` on a temporary cache and the `refresh` action); symbols are read
 *   from the target. Only files Sextant indexed with structure are given to
 *   ctags, so both see the same inventory (same excludes).
 * - ctags side: `ctags --options=NONE --language-force=<L> --output-format=json
 *   --fields=+nKzl -f - -L -` per language, on a copy of the text Sextant
 *   committed (so an edit made meanwhile cannot skew the comparison). ctags' default extras are kept:
 *   `--extras=-F` would drop file-scoped definitions (C `static` functions).
 *   Swift and Scala have no ctags parser in 5.9: a line-regex ctags language
 *   defined on the command line stands in (see `_ctags.ts`).
 * - Compared kinds: functions, methods, classes and types, mapped per language
 *   in `_ctags.ts` (`KIND_MAPPINGS`); kinds are not required to agree. ctags' unnamed
 *   definitions (`__anon…` in C/C++, `AnonymousFunction…` in JavaScript, `AnonymousClass…`
 *   in PHP) have no name to match: they are counted apart as "anonymous (not comparable)"
 *   and left out of the ctags count and recall's denominator.
 * - Matching: same path and simple name (ctags' `M.f` compares as `f`; whitespace removed, so
 *   ctags' `operator ()` is Sextant's `operator()`), and
 *   ctags' line within `--tolerance` lines of either Sextant's start line or
 *   a line of the definition that contains the name (Sextant's definition
 *   starts at its decorators, attributes, annotations or modifiers; ctags
 *   reports the line of the name). Pairs are one-to-one, closest first.
 * - Throughput: every file of the language is parsed and extracted
 *   sequentially in this process with the code a parse Worker runs
 *   (tree-sitter parse + `extractStructure`: query, names, relations,
 *   chunks); MB/s = UTF-8 bytes / 10^6 / wall seconds: one Worker's rate; MB/cpu-s
 *   divides by this process's CPU seconds instead (fairer when the machine is loaded).
 */
import { parseArgs } from "node:util";
import { cpuUsage } from "node:process";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Language, Parser, Query } from "web-tree-sitter";
import { runAction } from "../src/actions/dispatch.ts";
import { extractStructure, parseForExtraction } from "../src/indexer/extract.ts";
import {
  CORE_WASM,
  isLanguage,
  loadLanguageTable,
  readGrammarQueries,
  readGrammarWasm,
} from "../src/indexer/languages.ts";
import { unpackText } from "../src/store/packing.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import {
  type Definition,
  isAnonymous,
  KIND_MAPPINGS,
  matchDefinitions,
  type MatchResult,
  nameLines,
  runCtags,
} from "./_ctags.ts";

const MB = 1_000_000;

interface Options {
  path: string;
  languages: string[];
  sample: number;
  tolerance: number;
  throughput: boolean;
  json: boolean;
}

interface IndexedFile {
  path: string;
  language: string;
  size: number;
  text: string;
}

interface LanguageReport {
  language: string;
  files: number;
  bytes: number;
  /** Files with an `index_errors` row (syntax errors recovered, or failures). */
  files_with_errors: number;
  ctags_language: string | null;
  /** Named ctags definitions: recall's denominator. */
  ctags: number;
  /**
   * ctags' unnamed definitions (`__anon…` C/C++, `AnonymousFunction…` JavaScript,
   * `AnonymousClass…` PHP): no name to match, so listed apart and left out of `ctags` and of recall.
   */
  ctags_anonymous: number;
  anonymous_by_kind: Record<string, number>;
  sextant: number;
  matched: number;
  recall: number | null;
  precision: number | null;
  /** ctags tags on lines without the language's declaration keyword (see `declarationLine`). */
  ctags_not_declarations: number | null;
  /** Recall over ctags tags on declaration lines only. */
  recall_on_declarations: number | null;
  /** Matched pairs whose kinds differ in category (callable vs type). */
  kind_disagreements: number;
  missing_by_kind: Record<string, number>;
  extra_by_kind: Record<string, number>;
  missing_sample: string[];
  extra_sample: string[];
  mb_per_s: number | null;
  /** MB per CPU second of this process over the same pass. */
  mb_per_cpu_s: number | null;
  parse_seconds: number | null;
  note: string | null;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      path: { type: "string" },
      language: { type: "string", multiple: true },
      sample: { type: "string", default: "20" },
      tolerance: { type: "string", default: "2" },
      "no-throughput": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  if (!values.path) {
    throw new TypeError(
      "Usage: extraction_quality.ts --path DIR [--language L]... [--sample N] [--tolerance N] [--no-throughput] [--json]",
    );
  }
  return {
    path: Deno.realPathSync(values.path),
    languages: values.language ?? [],
    sample: Number(values.sample),
    tolerance: Number(values.tolerance),
    throughput: !values["no-throughput"],
    json: values.json,
  };
}

/** Indexes the checkout into a temporary cache; returns the structured files and symbols. */
async function indexWithSextant(root: string): Promise<{
  files: IndexedFile[];
  symbols: (Definition & { language: string; endLine: number })[];
  errorPaths: Set<string>;
  refreshMs: number;
}> {
  const cache = Deno.makeTempDirSync({ prefix: "sextant-quality-" });
  const workspace = await Workspace.open({ directory: root, cacheDirectory: cache });
  try {
    const started = performance.now();
    await runAction(workspace, "refresh", {});
    const refreshMs = performance.now() - started;
    const db = new DatabaseSync(workspace.repositories[0].location.databasePath, {
      readOnly: true,
    });
    try {
      const files = db.prepare(
        `SELECT f.path, f.language, f.size, t.text FROM source_files f
           JOIN file_text t ON t.file_id = f.id WHERE f.capability = 'graph' ORDER BY f.path`,
      ).all().map((row) => ({
        ...row,
        text: unpackText(row.text as Uint8Array),
      })) as unknown as IndexedFile[];
      const symbols = db.prepare(
        `SELECT f.path, f.language, s.name, s.qualified_name AS qualified, s.kind,
                s.start_line AS line, s.end_line AS endLine
           FROM code_symbols s JOIN source_files f ON f.id = s.file_id
          WHERE f.capability = 'graph'`,
      ).all() as unknown as (Definition & { language: string; endLine: number })[];
      const errorPaths = new Set(
        (db.prepare("SELECT path FROM index_errors").all() as { path: string }[]).map((r) =>
          r.path
        ),
      );
      return { files, symbols, errorPaths, refreshMs };
    } finally {
      db.close();
    }
  } finally {
    workspace.close();
    Deno.removeSync(cache, { recursive: true });
  }
}

let parserReady: Promise<void> | null = null;

/**
 * Wall-clock and CPU seconds to parse and extract the files one after another, as one Worker
 * does (CPU time is this process's: on a loaded machine it is the fairer per-Worker figure).
 */
async function measureThroughput(
  language: string,
  files: IndexedFile[],
): Promise<{ seconds: number; cpuSeconds: number }> {
  parserReady ??= Parser.init({ wasmBinary: Deno.readFileSync(CORE_WASM) });
  await parserReady;
  const grammar = isLanguage(language) ? loadLanguageTable().grammars.get(language) : undefined;
  if (!grammar) throw new Error(`no grammar for ${language}`);
  const lang = await Language.load(readGrammarWasm(grammar));
  const parser = new Parser();
  parser.setLanguage(lang);
  const query = new Query(lang, readGrammarQueries(grammar));
  try {
    let seconds = 0;
    let failures = 0;
    const cpuBefore = cpuUsage();
    for (const file of files) {
      const started = performance.now();
      try {
        const tree = parseForExtraction(parser, file.text, { rules: grammar.rules });
        if (tree) {
          extractStructure({
            tree,
            text: file.text,
            path: file.path,
            grammar: { query, rules: grammar.rules, nodes: grammar.nodes },
          });
          tree.delete();
        }
      } catch {
        // A grammar whose wasm fails on some input (reported by the index as a parse error).
        failures++;
      }
      seconds += (performance.now() - started) / 1000;
    }
    const cpu = cpuUsage(cpuBefore);
    if (failures > 0) console.error(`${language}: ${failures} file(s) threw while parsing`);
    return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
  } finally {
    query.delete();
    parser.delete();
  }
}

const CALLABLE =
  /^(function|method|constructor|func|member|singletonMethod|methodSpec|getter|setter|generator)$/;

/** Counts per kind, most first (a Map: kinds such as `constructor` are not Object keys). */
function countBy(defs: Definition[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const def of defs) counts.set(def.kind, (counts.get(def.kind) ?? 0) + 1);
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]));
}

/** An evenly spread, deterministic sample. */
function spread<T>(items: T[], size: number): T[] {
  if (items.length <= size) return items;
  const step = items.length / size;
  return Array.from({ length: size }, (_, i) => items[Math.floor(i * step)]);
}

function describe(def: Definition): string {
  const qualified = def.qualified && def.qualified !== def.name ? ` (${def.qualified})` : "";
  return `${def.path}:${def.line} ${def.kind} ${def.name}${qualified}`;
}

function ratio(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : Math.round((numerator / denominator) * 1000) / 1000;
}

async function compareLanguage(
  options: Options,
  snapshot: string,
  language: string,
  files: IndexedFile[],
  symbols: (Definition & { endLine: number })[],
  errorPaths: Set<string>,
): Promise<LanguageReport> {
  const bytes = files.reduce((sum, file) => sum + file.size, 0);
  const mapping = KIND_MAPPINGS[language];
  const timing = options.throughput ? await measureThroughput(language, files) : null;
  const seconds = timing?.seconds ?? null;
  const base = {
    language,
    files: files.length,
    bytes,
    files_with_errors: files.filter((file) => errorPaths.has(file.path)).length,
    mb_per_s: seconds ? Math.round((bytes / MB / seconds) * 100) / 100 : null,
    mb_per_cpu_s: timing?.cpuSeconds
      ? Math.round((bytes / MB / timing.cpuSeconds) * 100) / 100
      : null,
    parse_seconds: seconds === null ? null : Math.round(seconds * 1000) / 1000,
  };
  if (!mapping) {
    return {
      ...base,
      ctags_language: null,
      ctags: 0,
      ctags_anonymous: 0,
      anonymous_by_kind: {},
      sextant: symbols.length,
      matched: 0,
      recall: null,
      precision: null,
      ctags_not_declarations: null,
      recall_on_declarations: null,
      kind_disagreements: 0,
      missing_by_kind: {},
      extra_by_kind: {},
      missing_sample: [],
      extra_sample: [],
      note: "no ctags mapping for this language",
    };
  }
  const lines = new Map(files.map((file) => [file.path, file.text.split("\n")]));
  const kinds = new Set(mapping.sextantKinds);
  const sextant = symbols.filter((sym) => kinds.has(sym.kind)).map((sym) => ({
    ...sym,
    nameLines: nameLines(lines.get(sym.path) ?? [], {
      name: sym.name,
      startLine: sym.line,
      endLine: sym.endLine,
    }),
  }));
  const tags = await runCtags({ root: snapshot, paths: files.map((file) => file.path), mapping });
  const anonymous = tags.filter((tag) => isAnonymous(tag.name));
  const ctags = tags.filter((tag) => !isAnonymous(tag.name));
  const result: MatchResult = matchDefinitions(ctags, sextant, options.tolerance);
  const declares = mapping.declarationLine ? new RegExp(mapping.declarationLine) : null;
  const onDeclarations = (defs: Definition[]) =>
    declares ? defs.filter((def) => declares.test(def.text ?? "")).length : 0;
  const declaredTags = onDeclarations(ctags);
  return {
    ...base,
    ctags_language: mapping.ctagsLanguage,
    ctags: ctags.length,
    ctags_anonymous: anonymous.length,
    anonymous_by_kind: countBy(anonymous),
    sextant: sextant.length,
    matched: result.matched.length,
    recall: ratio(result.matched.length, ctags.length),
    precision: ratio(result.matched.length, sextant.length),
    ctags_not_declarations: declares ? ctags.length - declaredTags : null,
    recall_on_declarations: declares
      ? ratio(onDeclarations(result.matched.map((pair) => pair.ctags)), declaredTags)
      : null,
    kind_disagreements:
      result.matched.filter((pair) =>
        CALLABLE.test(pair.ctags.kind) !== CALLABLE.test(pair.sextant.kind)
      ).length,
    missing_by_kind: countBy(result.missing),
    extra_by_kind: countBy(result.extra),
    missing_sample: spread(result.missing, options.sample).map(describe),
    extra_sample: spread(
      result.extra.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line),
      options.sample,
    ).map(describe),
    note: mapping.note ?? null,
  };
}

function gitHead(root: string): string | null {
  const out = new Deno.Command("git", {
    args: ["-C", root, "rev-parse", "HEAD"],
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  return out.success ? new TextDecoder().decode(out.stdout).trim() : null;
}

function ctagsVersion(): string {
  const out = new Deno.Command("ctags", { args: ["--version"], stdout: "piped" }).outputSync();
  return new TextDecoder().decode(out.stdout).split("\n")[0];
}

function printReport(
  report: {
    path: string;
    commit: string | null;
    ctags: string;
    refresh_ms: number;
    load: number[];
  },
  languages: LanguageReport[],
): void {
  const pct = (value: number | null) => value === null ? "-" : value.toFixed(3);
  console.log(`checkout ${report.path} @ ${report.commit ?? "(not git)"}`);
  console.log(`${report.ctags}; Sextant cold refresh ${Math.round(report.refresh_ms)} ms`);
  console.log(`load average ${report.load.join(" ")}`);
  const header = [
    "language",
    "files",
    "MB",
    "err",
    "ctags",
    "sextant",
    "matched",
    "recall",
    "precision",
    "MB/s/Worker",
    "MB/cpu-s",
  ];
  const rows = languages.map((l) => [
    l.language,
    String(l.files),
    (l.bytes / MB).toFixed(2),
    String(l.files_with_errors),
    String(l.ctags),
    String(l.sextant),
    String(l.matched),
    pct(l.recall),
    pct(l.precision),
    l.mb_per_s === null ? "-" : l.mb_per_s.toFixed(2),
    l.mb_per_cpu_s === null ? "-" : l.mb_per_cpu_s.toFixed(2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  console.log("\n" + line(header));
  for (const row of rows) console.log(line(row));
  for (const l of languages) {
    console.log(`\n== ${l.language} (ctags ${l.ctags_language ?? "-"})`);
    if (l.note) console.log(`note: ${l.note}`);
    if (l.ctags_anonymous > 0) {
      console.log(
        `anonymous (not comparable): ${l.ctags_anonymous} ctags __anon…/Anonymous… tags ${
          JSON.stringify(l.anonymous_by_kind)
        }, left out of the ctags count and recall's denominator`,
      );
    }
    if (l.recall_on_declarations !== null) {
      console.log(
        `ctags tags on lines without a declaration keyword: ${l.ctags_not_declarations}; recall on the rest: ${
          pct(l.recall_on_declarations)
        }`,
      );
    }
    console.log(`matched pairs whose kind category differs: ${l.kind_disagreements}`);
    console.log(`ctags only, by ctags kind: ${JSON.stringify(l.missing_by_kind)}`);
    for (const item of l.missing_sample) console.log(`  - ${item}`);
    console.log(`Sextant only, by Sextant kind: ${JSON.stringify(l.extra_by_kind)}`);
    for (const item of l.extra_sample) console.log(`  + ${item}`);
  }
}

async function main(): Promise<void> {
  const options = parseOptions();
  const indexed = await indexWithSextant(options.path);
  const byLanguage = new Map<string, IndexedFile[]>();
  for (const file of indexed.files) {
    if (options.languages.length > 0 && !options.languages.includes(file.language)) continue;
    const list = byLanguage.get(file.language);
    if (list) list.push(file);
    else byLanguage.set(file.language, [file]);
  }
  // ctags reads the bytes Sextant committed, not a working tree that may have moved on since.
  const snapshot = Deno.makeTempDirSync({ prefix: "sextant-quality-files-" });
  for (const files of byLanguage.values()) {
    for (const file of files) {
      const full = join(snapshot, file.path);
      Deno.mkdirSync(dirname(full), { recursive: true });
      Deno.writeTextFileSync(full, file.text);
    }
  }
  const reports: LanguageReport[] = [];
  for (const [language, files] of [...byLanguage].sort((a, b) => a[0].localeCompare(b[0]))) {
    const symbols = indexed.symbols.filter((sym) => sym.language === language);
    reports.push(
      await compareLanguage(options, snapshot, language, files, symbols, indexed.errorPaths),
    );
  }
  Deno.removeSync(snapshot, { recursive: true });
  const header = {
    path: options.path,
    commit: gitHead(options.path),
    ctags: ctagsVersion(),
    refresh_ms: Math.round(indexed.refreshMs),
    load: Deno.loadavg().map((n) => Math.round(n * 10) / 10),
  };
  if (options.json) console.log(JSON.stringify({ ...header, languages: reports }, null, 2));
  else printReport(header, reports);
}

if (import.meta.main) {
  try {
    await main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    Deno.exit(2);
  }
}
