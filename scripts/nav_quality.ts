/**
 * Measures navigation against a language server on a real repository:
 * precision of `definition` (by evidence label) and recall/precision of
 * `references` on a seeded random sample, plus p50/p99 latency of `callers`
 * and `impact --depth 3`.
 *
 *   deno run -A --unstable-worker-options scripts/nav_quality.ts \
 *     --repo /tmp/requests --language python --sample 200 --seed 7
 *   deno run -A --unstable-worker-options scripts/nav_quality.ts \
 *     --repo /tmp/hono --language typescript --sample 200 --seed 7 \
 *     --tsserver /tmp/ts5/node_modules/typescript/lib/tsserver.js
 *
 * Servers: `pyright-langserver --stdio` (python), `typescript-language-server
 * --stdio` (typescript); install with `npm install -g pyright
 * typescript-language-server typescript`.
 */
import { parseArgs } from "node:util";

import { Workspace } from "../src/workspace/workspace.ts";
import { runAction } from "../src/actions/dispatch.ts";
import type { Envelope, ResultHit } from "../src/protocol/types.ts";
import { definitionNamePosition, namePosition } from "../src/resolver/subject.ts";
import type { RelationRecord, SymbolRecord } from "../src/resolver/types.ts";
import { LspClient, type LspLocation } from "./_lsp_client.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    repo: { type: "string" },
    language: { type: "string", default: "python" },
    sample: { type: "string", default: "200" },
    seed: { type: "string", default: "7" },
    out: { type: "string" },
    verbose: { type: "boolean", default: false },
    tsserver: { type: "string" },
    warmup: { type: "string", default: "60" },
  },
});
if (!values.repo) {
  console.error("usage: nav_quality.ts --repo DIR --language python|typescript [--sample N]");
  Deno.exit(2);
}
const root = Deno.realPathSync(values.repo);
const language = values.language!;
const sampleSize = Number(values.sample);
const random = mulberry32(Number(values.seed));
const SERVERS: Record<
  string,
  { command: string[]; languageId: (path: string) => string; files: RegExp }
> = {
  python: {
    command: ["pyright-langserver", "--stdio"],
    languageId: () => "python",
    files: /\.pyi?$/,
  },
  typescript: {
    command: ["typescript-language-server", "--stdio"],
    languageId: (p) => (p.endsWith(".tsx") ? "typescriptreact" : "typescript"),
    files: /\.(ts|tsx|mts|cts)$/,
  },
};
const server = SERVERS[language];
if (!server) throw new RangeError(`Unknown language '${language}'`);

const cache = Deno.makeTempDirSync({ prefix: "sextant-navq-" });
const workspace = await Workspace.open({ directory: root, cacheDirectory: cache });
const repo = workspace.repositories[0];
const indexStart = performance.now();
await workspace.refresh(repo);
console.error(`indexed ${repo.name} in ${Math.round(performance.now() - indexStart)} ms`);

const rows = workspace.withReader(repo, (reader) => ({
  files: [...reader.fileTable().files.values()]
    .filter((f) =>
      f.capability === "graph" && server.files.test(f.path) && !f.path.endsWith(".d.ts")
    )
    .map((f) => ({ path: f.path, text: reader.fileText(f.path) ?? "" })),
  relations: reader.relationsOfKinds(["calls", "references", "type_of", "inherits", "implements"])
    .map((r): Record<string, unknown> => ({
      path: r.path,
      kind: r.kind,
      target: r.target,
      receiver: r.receiver,
      module: r.module,
      alias: r.alias,
      start_line: r.startLine,
      start_col: r.startCol,
      end_line: r.endLine,
      end_col: r.endCol,
    })),
  symbols: reader.symbolsOfKinds([
    "function",
    "method",
    "class",
    "interface",
    "type",
    "enum",
    "constant",
    "variable",
  ]).map((s): Record<string, unknown> => ({
    path: s.path,
    id: s.id,
    name: s.name,
    qualified_name: s.qualified,
    kind: s.kind,
    start_line: s.startLine,
    start_col: s.startCol,
    end_line: s.endLine,
    end_col: s.endCol,
  })),
})).value!;
const texts = new Map(rows.files.map((f) => [f.path, f.text]));

const uses = shuffle(rows.relations.filter((r) => texts.has(r.path as string))).map((r) => {
  const relation = {
    repo: repo.name,
    path: r.path as string,
    language,
    kind: r.kind as string,
    fromSymbol: null,
    target: r.target as string,
    receiver: r.receiver as string | null,
    module: null,
    alias: null,
    startLine: Number(r.start_line),
    startCol: Number(r.start_col),
    endLine: Number(r.end_line),
    endCol: Number(r.end_col),
  } satisfies RelationRecord;
  return { relation, at: namePosition(texts.get(relation.path)!, relation) };
}).filter((u) => u.at !== null).slice(0, sampleSize);

const definitions = shuffle(rows.symbols.filter((s) => texts.has(s.path as string))).map((s) => {
  const symbol = {
    repo: repo.name,
    path: s.path as string,
    language,
    id: s.id as string,
    name: s.name as string,
    qualified: s.qualified_name as string,
    kind: s.kind as string,
    startLine: Number(s.start_line),
    startCol: Number(s.start_col),
    endLine: Number(s.end_line),
    endCol: Number(s.end_col),
    signature: null,
    parentId: null,
    exported: true,
  } satisfies SymbolRecord;
  return { symbol, at: definitionNamePosition(texts.get(symbol.path)!, symbol) };
}).filter((d) => d.at !== null).slice(0, sampleSize);

/** Name positions of every declaration of a qualified name (overloads share one). */
const declarations = new Map<string, Set<string>>();
for (const s of rows.symbols) {
  const text = texts.get(s.path as string);
  if (text === undefined) continue;
  const at = definitionNamePosition(text, {
    name: s.name as string,
    startLine: Number(s.start_line),
    startCol: Number(s.start_col),
    endLine: Number(s.end_line),
  } as SymbolRecord);
  if (!at) continue;
  const key = s.qualified_name as string;
  if (!declarations.has(key)) declarations.set(key, new Set());
  declarations.get(key)!.add(`${s.path}:${at.line}`);
}

const lsp = await LspClient.start(server.command, root, initializationOptionsFor(language));
const openFile = (path: string) => lsp.open(path, server.languageId(path));
// Let the server load the project once before timing-insensitive queries.
if (uses[0]) {
  openFile(uses[0].relation.path);
  await lsp.definition(uses[0].relation.path, uses[0].at!.line, uses[0].at!.column).catch(() => []);
}
// tsserver answers from a partial (syntax-only) project while it loads: open every sampled
// file and give it time, so that flakiness of the reference is not counted against Sextant.
for (
  const path of new Set([
    ...uses.map((u) => u.relation.path),
    ...definitions.map((d) => d.symbol.path),
  ])
) {
  openFile(path);
}
await new Promise((resolve) => setTimeout(resolve, Number(values.warmup) * 1000));

// ---- definition ----
const byLabel: Record<string, { answered: number; correct: number; lspExternal: number }> = {};
let lspInRepo = 0;
let answeredInRepo = 0;
let candidatesAnswers = 0;
const definitionMisses: string[] = [];
const definitionUnanswered: string[] = [];
for (const use of uses) {
  const { path } = use.relation;
  const { line, column } = use.at!;
  openFile(path);
  const expected = (await lsp.definition(path, line, column).catch(() => [] as LspLocation[]))
    .filter((l) => !l.path.startsWith("/"));
  const answer = await runAction(workspace, "definition", { path, line, column });
  const hit = answer.results[0] as ResultHit | undefined;
  if (expected.length > 0) lspInRepo++;
  if (!hit) {
    if (answer.candidates?.length) candidatesAnswers++;
    if (expected.length > 0) {
      definitionUnanswered.push(
        `${path}:${line}:${column} ${written(use.relation)} → lsp ${expected[0].path}:${
          expected[0].line
        }; ${
          answer.candidates?.length
            ? `${answer.candidates.length} candidates`
            : answer.limitations[0] ?? ""
        }`,
      );
    }
    continue;
  }
  const label = String(hit.confidence);
  const slot = byLabel[label] ??= { answered: 0, correct: 0, lspExternal: 0 };
  slot.answered++;
  if (expected.length > 0) answeredInRepo++;
  else slot.lspExternal++;
  const nameLine = definitionNamePosition(texts.get(hit.path) ?? "", {
    name: String(hit.name ?? ""),
    startLine: hit.start_line,
    startCol: Number(hit.start_column ?? 1),
    endLine: hit.end_line,
  } as SymbolRecord)?.line ?? hit.start_line;
  // Any declaration of the definition counts (an overload signature or its implementation).
  const correct = expected.some((l) =>
    l.path === hit.path &&
    (l.line === nameLine || declarations.get(String(hit.symbol))?.has(`${l.path}:${l.line}`))
  );
  if (correct) slot.correct++;
  else {
    definitionMisses.push(
      `${path}:${line}:${column} ${
        use.relation.receiver ? use.relation.receiver + "." : ""
      }${use.relation.target} → ours ${hit.path}:${nameLine} (${hit.evidence}) lsp ${
        expected.map((l) => `${l.path}:${l.line}`).join(",") || "none/external"
      }`,
    );
  }
}

// ---- references ----
let lspReferences = 0;
let matchedReferences = 0;
let ourReferences = 0;
let confirmedReferences = 0;
let ourExactReferences = 0;
let confirmedExactReferences = 0;
let matchedExactReferences = 0;
const recallPerSymbol: number[] = [];
const referenceMisses: string[] = [];
const referenceExtras: string[] = [];
for (const definition of definitions) {
  const { path } = definition.symbol;
  const { line, column } = definition.at!;
  openFile(path);
  const expected = (await lsp.references(path, line, column).catch(() => [] as LspLocation[]))
    .filter((l) => !l.path.startsWith("/") && texts.has(l.path))
    .filter((l) => !(l.path === path && l.line === line))
    // Names inside strings (`__all__ = ("name", ...)`) are not code references.
    .filter((l) => !/["']/.test(texts.get(l.path)!.split("\n")[l.line - 1]?.[l.column - 2] ?? ""))
    // Other declarations of the same definition (overload signatures) are not references.
    .filter((l) => !declarations.get(definition.symbol.qualified)?.has(`${l.path}:${l.line}`));
  const answer = await runAction(workspace, "references", { path, line, column, limit: 1000 });
  const hits = answer.results;
  const covers = (hit: ResultHit, l: LspLocation) =>
    hit.path === l.path && hit.start_line <= l.line && l.line <= hit.end_line;
  const matched = expected.filter((l) => hits.some((hit) => covers(hit, l)));
  lspReferences += expected.length;
  matchedReferences += matched.length;
  ourReferences += hits.length;
  confirmedReferences += hits.filter((hit) => expected.some((l) => covers(hit, l))).length;
  const exactHits = hits.filter((hit) => hit.confidence === "exact");
  ourExactReferences += exactHits.length;
  confirmedExactReferences += exactHits.filter((hit) =>
    expected.some((l) => covers(hit, l))
  ).length;
  matchedExactReferences += expected.filter((l) => exactHits.some((hit) => covers(hit, l))).length;
  if (expected.length > 0) recallPerSymbol.push(matched.length / expected.length);
  for (const hit of hits.filter((hit) => !expected.some((l) => covers(hit, l))).slice(0, 2)) {
    referenceExtras.push(
      `${definition.symbol.qualified}: extra ${hit.path}:${hit.start_line} ${hit.kind} (${hit.evidence})`,
    );
  }
  for (const l of expected.filter((l) => !matched.includes(l)).slice(0, 2)) {
    referenceMisses.push(`${definition.symbol.qualified}: missed ${l.path}:${l.line}`);
  }
}

// ---- latency ----
const callersMs: number[] = [];
const impactMs: number[] = [];
const impactRows: number[] = [];
const impactResults: number[] = [];
for (const definition of definitions) {
  const { path } = definition.symbol;
  const { line, column } = definition.at!;
  let start = performance.now();
  await runAction(workspace, "callers", { path, line, column });
  callersMs.push(performance.now() - start);
  start = performance.now();
  const impact: Envelope = await runAction(workspace, "impact", { path, line, column, depth: 3 });
  impactMs.push(performance.now() - start);
  impactRows.push(Number((impact.data as { rows_read?: number }).rows_read ?? 0));
  impactResults.push(impact.results.length);
}
await lsp.close();
workspace.close();

const report = {
  repository: root,
  head: new TextDecoder().decode(
    new Deno.Command("git", { args: ["rev-parse", "HEAD"], cwd: root, stdout: "piped" })
      .outputSync()
      .stdout,
  ).trim(),
  language,
  server: server.command.join(" "),
  sample: { uses: uses.length, symbols: definitions.length, seed: Number(values.seed) },
  definition: {
    by_label: Object.fromEntries(
      Object.entries(byLabel).map(([label, s]) => [label, {
        ...s,
        precision: round(s.correct / Math.max(1, s.answered)),
      }]),
    ),
    lsp_in_repository: lspInRepo,
    answered_where_lsp_in_repository: answeredInRepo,
    coverage: round(answeredInRepo / Math.max(1, lspInRepo)),
    candidates_answers: candidatesAnswers,
  },
  references: {
    lsp_references: lspReferences,
    matched: matchedReferences,
    recall_micro: round(matchedReferences / Math.max(1, lspReferences)),
    recall_macro: round(
      recallPerSymbol.reduce((a, b) => a + b, 0) / Math.max(1, recallPerSymbol.length),
    ),
    ours: ourReferences,
    precision_micro: round(confirmedReferences / Math.max(1, ourReferences)),
    recall_exact_only: round(matchedExactReferences / Math.max(1, lspReferences)),
    ours_exact: ourExactReferences,
    precision_exact: round(confirmedExactReferences / Math.max(1, ourExactReferences)),
  },
  latency_ms: {
    callers: { p50: percentile(callersMs, 50), p99: percentile(callersMs, 99) },
    impact_depth3: { p50: percentile(impactMs, 50), p99: percentile(impactMs, 99) },
    impact_rows_read_mean: round(
      impactRows.reduce((a, b) => a + b, 0) / Math.max(1, impactRows.length),
    ),
    impact_results_mean: round(
      impactResults.reduce((a, b) => a + b, 0) / Math.max(1, impactResults.length),
    ),
  },
};
console.log(JSON.stringify(report, null, 2));
if (values.verbose) {
  console.error("definition misses:\n  " + definitionMisses.join("\n  "));
  console.error("definition unanswered:\n  " + definitionUnanswered.join("\n  "));
  console.error("reference misses (first 2 per symbol):\n  " + referenceMisses.join("\n  "));
  console.error(
    "exact reference extras (first 2 per symbol):\n  " +
      referenceExtras.filter((e) => /\((same_file|import|module_path)\)$/.test(e)).join("\n  "),
  );
}
if (values.out) {
  Deno.writeTextFileSync(
    values.out,
    JSON.stringify(
      { report, definitionMisses, definitionUnanswered, referenceMisses, referenceExtras },
      null,
      2,
    ),
  );
}
Deno.removeSync(cache, { recursive: true });

/**
 * typescript-language-server needs tsserver (TypeScript 5.x; 7.x ships no tsserver.js):
 * `--tsserver PATH`, else the globally installed `typescript`.
 */
function initializationOptionsFor(language: string): Record<string, unknown> {
  if (language !== "typescript") return {};
  if (values.tsserver) return { tsserver: { path: values.tsserver } };
  const out = new Deno.Command("npm", { args: ["root", "-g"], stdout: "piped" }).outputSync();
  const globalRoot = new TextDecoder().decode(out.stdout).trim();
  return { tsserver: { path: `${globalRoot}/typescript/lib/tsserver.js` } };
}

function written(relation: RelationRecord): string {
  return relation.receiver ? `${relation.receiver}.${relation.target}` : relation.target;
}

function shuffle<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
