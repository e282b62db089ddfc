/**
 * Whether Sextant's routed answers equal the language server's own: `definition` at a seeded
 * sample of uses and `references` at a sample of definitions of a real repository, asked once
 * through Sextant (`executeAction` with the `lsp:` backend: structural answer, routing, mapping
 * onto the committed snapshot, policy) and once straight to a second process of the same server
 * with the same launch plan. Locations are compared as sets of `path:line:column` of the name;
 * the server's locations outside the repository or in files the index does not hold are left
 * out of both (Sextant drops them and says how many).
 *
 *   deno run -A --unstable-worker-options scripts/lsp_agreement.ts \
 *     --repo /work/src-psf+requests --language python --sample 100 --seed 7
 *   deno run -A --unstable-worker-options scripts/lsp_agreement.ts \
 *     --repo /work/src-honojs+hono --language typescript --sample 100 --seed 7
 *
 * The tree is read, never written (the index goes to a temporary cache). typescript takes its
 * tsserver.js from `--tsserver PATH`, else $SEXTANT_TSSERVER, else the one `.ci/run` installs,
 * else beside typescript-language-server.
 */
import { parseArgs } from "node:util";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { executeAction } from "../src/daemon/execute.ts";
import { Grant } from "../src/daemon/policy.ts";
import { openLspBackend } from "../src/actions/lsp_route.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { LspClient } from "../src/lsp/client.ts";
import { launchPlan } from "../src/lsp/safety.ts";
import { defaultTsserver } from "./_bench_lsp.ts";
import { languageIdOf } from "../src/lsp/language_ids.ts";
import { definitionNamePosition, namePosition } from "../src/resolver/subject.ts";
import type { RelationRecord, SymbolRecord } from "../src/resolver/types.ts";
import type { Envelope, ResultHit } from "../src/protocol/types.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    repo: { type: "string" },
    language: { type: "string", default: "python" },
    sample: { type: "string", default: "100" },
    seed: { type: "string", default: "7" },
    tsserver: { type: "string" },
    json: { type: "string" },
    verbose: { type: "boolean", default: false },
  },
});
if (!values.repo) {
  console.error("usage: lsp_agreement.ts --repo DIR --language python|typescript [--sample N]");
  Deno.exit(2);
}
const root = Deno.realPathSync(values.repo);
const language = values.language!;
const sampleSize = Number(values.sample);
const random = mulberry32(Number(values.seed));
const FILES: Record<string, RegExp> = {
  python: /\.pyi?$/,
  typescript: /\.(ts|tsx|mts|cts)$/,
};
if (!FILES[language]) throw new RangeError(`Unknown language '${language}'`);

const tsserver = values.tsserver ?? defaultTsserver();
const server = language === "python" ? { command: ["pyright-langserver", "--stdio"] } : {
  command: ["typescript-language-server", "--stdio"],
  // Without one, the tsserver beside typescript-language-server's install is used.
  ...(tsserver ? { initialization_options: { tsserver: { path: tsserver } } } : {}),
};
const scratch = Deno.makeTempDirSync({ prefix: "sextant-lsp-agreement-" });
const name = basename(root);
Deno.writeTextFileSync(
  join(scratch, "sextant.yml"),
  JSON.stringify({
    repositories: [{ name, path: root }],
    lsp: { [language]: { ...server, request_timeout_ms: 60_000, ready_timeout_ms: 300_000 } },
  }),
);
const workspace = await Workspace.open({
  configPath: join(scratch, "sextant.yml"),
  cacheDirectory: join(scratch, "cache"),
});
const repo = workspace.repositories[0];
const indexStarted = performance.now();
await workspace.refresh(repo);
console.error(`indexed ${name} in ${Math.round(performance.now() - indexStarted)} ms`);

const rows = workspace.withReader(repo, (reader) => ({
  texts: new Map(
    [...reader.fileTable().files.values()]
      .filter((f) => f.capability === "graph" && FILES[language].test(f.path))
      .map((f) => [f.path, reader.fileText(f.path) ?? ""]),
  ),
  indexed: reader.paths(),
  relations: reader.relationsOfKinds(["calls", "references", "type_of", "inherits", "implements"]),
  symbols: reader.symbolsOfKinds(["function", "method", "class", "interface", "type", "enum"]),
})).value!;
const texts = rows.texts;

const uses = shuffle(rows.relations.filter((r) => texts.has(r.path) && !r.path.endsWith(".d.ts")))
  .map((r) => {
    const relation: RelationRecord = {
      repo: name,
      path: r.path,
      language,
      kind: r.kind,
      fromSymbol: null,
      target: r.target,
      receiver: r.receiver,
      module: null,
      alias: null,
      startLine: r.startLine,
      startCol: r.startCol,
      endLine: r.endLine,
      endCol: r.endCol,
    };
    const at = namePosition(texts.get(r.path)!, relation);
    return at && { path: r.path, line: at.line, column: at.column };
  }).filter((at) => at !== null).slice(0, sampleSize);
const definitions = shuffle(rows.symbols.filter((s) => texts.has(s.path))).map((s) => {
  const at = definitionNamePosition(texts.get(s.path)!, { ...s, repo: name } as SymbolRecord);
  return at && { path: s.path, line: at.line, column: at.column };
}).filter((at) => at !== null).slice(0, sampleSize);

// Sextant: the routed backend (a one-shot caller's wait: the first request waits for the server).
const backend = (await openLspBackend(workspace, { wait: "request_timeout" }))!;
const grant = Grant.full();
async function sextant(action: string, params: Record<string, unknown>): Promise<Envelope> {
  const results: ResultHit[] = [];
  let first: Envelope | null = null;
  let cursor: string | null = null;
  do {
    const { envelope } = await executeAction({
      workspace,
      grant,
      action,
      params: { ...params, limit: 1000, ...(cursor ? { cursor } : {}) },
      lsp: backend,
    });
    first ??= envelope;
    results.push(...envelope.results);
    cursor = envelope.next_cursor;
  } while (cursor);
  return { ...first!, results };
}

// The server's own answers: a second process of the same server with the same launch plan.
const plan = launchPlan(workspace.config.lsp!.get(language)!, {
  repositoryRoots: [root],
  hostEnv: Deno.env.toObject(),
});
let directReady = !plan.readyLog;
const direct = LspClient.spawn(plan, {
  root,
  startTimeoutMs: 120_000,
  onLog: (message) => {
    if (plan.readyLog?.test(message)) directReady = true;
  },
});
await direct.initialize();
const readyBy = Date.now() + 300_000;
while (!directReady && Date.now() < readyBy) await new Promise((r) => setTimeout(r, 100));

type Site = { path: string; line: number; column: number };
const key = (site: Site) => `${site.path}:${site.line}:${site.column}`;

async function ask(method: string, at: Site): Promise<{ inRepo: Set<string>; outside: number }> {
  direct.syncDocument(at.path, languageIdOf(at.path, language), texts.get(at.path)!);
  const answer = await direct.request<unknown>(method, {
    textDocument: { uri: pathToFileURL(join(root, at.path)).href },
    position: { line: at.line - 1, character: at.column - 1 },
    ...(method === "textDocument/references" ? { context: { includeDeclaration: false } } : {}),
  }, 120_000).catch(() => null);
  const list = (answer === null ? [] : Array.isArray(answer) ? answer : [answer]) as {
    uri?: string;
    targetUri?: string;
    range?: { start: { line: number; character: number } };
    targetSelectionRange?: { start: { line: number; character: number } };
  }[];
  const inRepo = new Set<string>();
  let outside = 0;
  for (const item of list) {
    const uri = item.uri ?? item.targetUri ?? "";
    const start = (item.targetSelectionRange ?? item.range)!.start;
    const full = uri.startsWith("file:") ? fileURLToPath(uri) : uri;
    const path = full.startsWith(`${root}/`) ? full.slice(root.length + 1) : null;
    if (path === null || !rows.indexed.has(path)) {
      outside++;
      continue;
    }
    inRepo.add(key({ path, line: start.line + 1, column: start.character + 1 }));
  }
  return { inRepo, outside };
}

interface Tally {
  asked: number;
  routed: number;
  equal: number;
  differ: number;
  /** The server's locations (in the repository and the index), and how many Sextant returned. */
  server_locations: number;
  matched_locations: number;
  sextant_locations: number;
  fallbacks: Record<string, number>;
  differences: string[];
}

async function measure(action: "definition" | "references", sites: Site[]): Promise<Tally> {
  const method = action === "definition" ? "textDocument/definition" : "textDocument/references";
  const tally: Tally = {
    asked: 0,
    routed: 0,
    equal: 0,
    differ: 0,
    server_locations: 0,
    matched_locations: 0,
    sextant_locations: 0,
    fallbacks: {},
    differences: [],
  };
  for (const at of sites) {
    tally.asked++;
    const answer = await sextant(action, { ...at });
    const expected = (await ask(method, at)).inRepo;
    if (!answer.provenance.backend.startsWith("lsp:")) {
      // Nothing at the position (the server found nothing) is "no_result": agreement too.
      const reason = /^lsp:\w+ (\w+)/.exec(answer.provenance.fallback_reason ?? "")?.[1] ??
        "not routed";
      tally.fallbacks[reason] = (tally.fallbacks[reason] ?? 0) + 1;
      if (reason === "no_result" && expected.size === 0) tally.equal++;
      else if (reason === "no_result") tally.differ++;
      tally.server_locations += expected.size;
      continue;
    }
    tally.routed++;
    const got = new Set(
      answer.results.map((hit) =>
        key({ path: hit.path, line: Number(hit.name_line), column: Number(hit.start_column) })
      ),
    );
    const matched = [...expected].filter((site) => got.has(site)).length;
    tally.server_locations += expected.size;
    tally.sextant_locations += got.size;
    tally.matched_locations += matched;
    if (matched === expected.size && matched === got.size) tally.equal++;
    else {
      tally.differ++;
      tally.differences.push(
        `${key(at)}: server [${[...expected].join(", ")}] sextant [${[...got].join(", ")}]`,
      );
    }
  }
  return tally;
}

// Warm both: the first routed request waits for the server; the direct one answers after it.
const warmStarted = performance.now();
if (uses[0]) {
  await sextant("definition", { ...uses[0] });
  await ask("textDocument/definition", uses[0]);
}
const warmMs = Math.round(performance.now() - warmStarted);
const started = performance.now();
const definition = await measure("definition", uses);
const references = await measure("references", definitions);
const measuredMs = Math.round(performance.now() - started);
const status = backend.manager.status(name)[0];
await direct.stop();
await backend.dispose();
workspace.close();
Deno.removeSync(scratch, { recursive: true });

const summary = (tally: Tally) => ({
  asked: tally.asked,
  routed: tally.routed,
  equal: tally.equal,
  differ: tally.differ,
  agreement: round(tally.equal / Math.max(1, tally.asked)),
  location_recall: round(tally.matched_locations / Math.max(1, tally.server_locations)),
  location_precision: round(tally.matched_locations / Math.max(1, tally.sextant_locations)),
  server_locations: tally.server_locations,
  sextant_locations: tally.sextant_locations,
  fallbacks: tally.fallbacks,
});
const report = {
  repository: root,
  head: new TextDecoder().decode(
    new Deno.Command("git", { args: ["rev-parse", "HEAD"], cwd: root, stdout: "piped" })
      .outputSync().stdout,
  ).trim(),
  language,
  server: plan.executable,
  seed: Number(values.seed),
  warm_up_ms: warmMs,
  measured_ms: measuredMs,
  definition: summary(definition),
  references: summary(references),
  server_status: {
    state: status.state,
    ready_ms: status.ready_ms,
    requests: status.requests,
    p50_request_ms: status.p50_request_ms,
    p95_request_ms: status.p95_request_ms,
  },
};
console.log(JSON.stringify(report, null, 2));
if (values.verbose) {
  console.error("definition differences:\n  " + definition.differences.join("\n  "));
  console.error("references differences:\n  " + references.differences.join("\n  "));
}
if (values.json) {
  Deno.writeTextFileSync(
    values.json,
    JSON.stringify(
      {
        report,
        differences: { definition: definition.differences, references: references.differences },
      },
      null,
      2,
    ) + "\n",
  );
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

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
