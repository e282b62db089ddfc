/**
 * The overhead of Sextant's LSP router over a direct request to the same language server:
 * `textDocument/definition` and `textDocument/references` at call sites of a repository, sent
 * once straight through an LSP client and once through `LspRouter` (manager session, committed
 * snapshot, document sync, mapping, freshness check), each against its own warm server.
 *
 *   deno run -A scripts/lsp_latency.ts [--repo DIR | --mirror psf+requests] [--positions N]
 *        [--rounds N] [--json FILE]
 *
 * Default: a clone of /work/.mirror/psf+requests/repo in a temporary directory, pyright.
 * The committed snapshot is every tracked file's HEAD text held in memory, as the index's
 * reader serves it.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { LspClient } from "../src/lsp/client.ts";
import { parseLspConfig } from "../src/lsp/config.ts";
import { launchPlan } from "../src/lsp/safety.ts";
import { LspManager } from "../src/lsp/manager.ts";
import { LspRouter, type SourcePosition } from "../src/lsp/router.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    repo: { type: "string" },
    mirror: { type: "string", default: "psf+requests" },
    positions: { type: "string", default: "40" },
    rounds: { type: "string", default: "3" },
    json: { type: "string" },
  },
});

function git(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", { args, cwd, stdout: "piped", stderr: "piped" })
    .outputSync();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

let root = values.repo;
let cleanup: string | null = null;
if (!root) {
  cleanup = Deno.makeTempDirSync({ prefix: "sextant-lsp-latency-" });
  root = join(cleanup, "repo");
  git(cleanup, "clone", "-q", `/work/.mirror/${values.mirror}/repo`, root);
}
root = Deno.realPathSync(root);

// The committed snapshot: HEAD text of every tracked Python file, in memory.
const committed = new Map<string, string>();
for (const path of git(root, "ls-files", "-z", "*.py").split("\0").filter(Boolean)) {
  committed.set(path, git(root, "show", `HEAD:${path}`));
}

// Call sites `name(` in library code, spread over the files, deterministic.
const positions: SourcePosition[] = [];
const sources = [...committed.keys()].filter((p) => p.startsWith("src/")).sort();
const wanted = Number(values.positions);
for (let round = 0; positions.length < wanted && round < 50; round++) {
  for (const path of sources) {
    const lines = committed.get(path)!.split("\n");
    let seen = 0;
    for (let i = 0; i < lines.length && positions.length < wanted; i++) {
      const match = /(?<![\w.])([a-z_][a-z0-9_]{3,})\(/.exec(lines[i]);
      if (!match || /^\s*(def|class)\s/.test(lines[i])) continue;
      if (seen++ !== round) continue;
      positions.push({ path, line: i + 1, column: match.index + 1 });
      break;
    }
  }
}

const config = parseLspConfig({ python: { command: ["pyright-langserver", "--stdio"] } }, "bench");
const server = config.get("python")!;
const plan = launchPlan(server, { repositoryRoots: [root], hostEnv: Deno.env.toObject() });

// Direct: one client, the file opened, the request sent.
const direct = LspClient.spawn(plan, { root, startTimeoutMs: 60_000 });
await direct.initialize();
// Routed: the manager's own server through the router.
const manager = new LspManager({ config, repositories: [{ name: "requests", root }] });
const router = new LspRouter(manager);
const request = {
  repo: "requests",
  language: "python",
  snapshot: { text: (path: string) => committed.get(path) ?? null },
  waitForReadyMs: 120_000,
  timeoutMs: 60_000,
};

async function directCall(method: string, at: SourcePosition): Promise<number> {
  direct.syncDocument(at.path, "python", committed.get(at.path)!);
  const params = {
    textDocument: { uri: pathToFileURL(join(root!, at.path)).href },
    position: { line: at.line - 1, character: at.column - 1 },
    ...(method === "textDocument/references" ? { context: { includeDeclaration: false } } : {}),
  };
  const started = performance.now();
  await direct.request(method, params, 60_000);
  return performance.now() - started;
}

async function routedCall(method: string, at: SourcePosition): Promise<number> {
  const started = performance.now();
  const answer = method === "textDocument/definition"
    ? await router.definition(request, at)
    : await router.references(request, at);
  const ms = performance.now() - started;
  // "no_result" (nothing at the site, e.g. an unresolved attribute) is a full round trip too.
  if (!answer.ok && answer.reason !== "no_result") {
    throw new Error(`routed ${method} fell back: ${answer.reason}: ${answer.message}`);
  }
  return ms;
}

// Warm both servers over every position (first analysis of each file is not measured).
const warmStarted = performance.now();
for (const at of positions) {
  await directCall("textDocument/definition", at);
  await routedCall("textDocument/definition", at);
}
const warmMs = performance.now() - warmStarted;

const quantile = (list: number[], q: number) => {
  const sorted = [...list].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 100) / 100;
};
const report: Record<string, unknown> = {
  repo: root,
  head: git(root, "rev-parse", "HEAD").trim(),
  server: plan.executable,
  positions: positions.length,
  rounds: Number(values.rounds),
  warm_up_ms: Math.round(warmMs),
};
for (const method of ["textDocument/definition", "textDocument/references"]) {
  const directMs: number[] = [];
  const routedMs: number[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const at of positions) {
      // Alternate which goes first so neither gains from the other's cache.
      if (round % 2 === 0) {
        directMs.push(await directCall(method, at));
        routedMs.push(await routedCall(method, at));
      } else {
        routedMs.push(await routedCall(method, at));
        directMs.push(await directCall(method, at));
      }
    }
  }
  const overhead = routedMs.map((ms, i) => ms - directMs[i]);
  report[method] = {
    samples: directMs.length,
    direct_p50_ms: quantile(directMs, 0.5),
    direct_p95_ms: quantile(directMs, 0.95),
    routed_p50_ms: quantile(routedMs, 0.5),
    routed_p95_ms: quantile(routedMs, 0.95),
    overhead_p50_ms: quantile(overhead, 0.5),
    overhead_p95_ms: quantile(overhead, 0.95),
  };
}
report.server_status = manager.status("requests")[0];

await direct.stop();
await manager.dispose();
if (cleanup) Deno.removeSync(cleanup, { recursive: true });

console.log(
  ["method", "direct p50", "direct p95", "routed p50", "routed p95", "overhead p50", "overhead p95"]
    .join("\t"),
);
for (const method of ["textDocument/definition", "textDocument/references"]) {
  const row = report[method] as Record<string, number>;
  console.log([
    method,
    row.direct_p50_ms,
    row.direct_p95_ms,
    row.routed_p50_ms,
    row.routed_p95_ms,
    row.overhead_p50_ms,
    row.overhead_p95_ms,
  ].join("\t"));
}
if (values.json) Deno.writeTextFileSync(values.json, JSON.stringify(report, null, 2) + "\n");
