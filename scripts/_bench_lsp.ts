/**
 * The overhead of Sextant's LSP router over a direct request to the same language server:
 * `textDocument/definition` and `textDocument/references` at call sites of one repository, sent
 * once straight through an LSP client and once through `LspRouter` (manager session, committed
 * snapshot, document sync, mapping, freshness check), each against its own warm server started
 * with the same launch plan. Used by `scripts/lsp_latency.ts` and by `deno task bench --lsp`.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { LspClient } from "../src/lsp/client.ts";
import { parseLspConfig } from "../src/lsp/config.ts";
import { launchPlan } from "../src/lsp/safety.ts";
import { LspManager } from "../src/lsp/manager.ts";
import { LspRouter, type SourcePosition } from "../src/lsp/router.ts";
import { languageIdOf } from "../src/lsp/language_ids.ts";
import { Workspace } from "../src/workspace/workspace.ts";

/** The servers the overhead can be measured with, by Sextant language. */
export const LSP_BENCH_SERVERS: Record<string, { command: string[]; files: RegExp }> = {
  python: { command: ["pyright-langserver", "--stdio"], files: /\.py$/ },
  typescript: {
    command: ["typescript-language-server", "--stdio"],
    files: /(?<!\.d)\.ts$/,
  },
};

export interface LspOverheadRow {
  samples: number;
  direct_p50_ms: number;
  direct_p95_ms: number;
  routed_p50_ms: number;
  routed_p95_ms: number;
  overhead_p50_ms: number;
  overhead_p95_ms: number;
}

export interface LspOverheadResult {
  language: string;
  server: string;
  positions: number;
  rounds: number;
  warm_up_ms: number;
  definition: LspOverheadRow;
  references: LspOverheadRow;
  /** Routed requests that fell back for another reason than "nothing at the position". */
  fallbacks: number;
  server_status: unknown;
}

/**
 * A tsserver.js for typescript-language-server: $SEXTANT_TSSERVER, else the one `.ci/run`
 * installs (~/.cache/sextant-ci/lsp-servers), else null (the server's own search applies).
 */
export function defaultTsserver(): string | null {
  const configured = Deno.env.get("SEXTANT_TSSERVER");
  if (configured) return configured;
  const home = Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "", ".cache");
  const path = join(home, "sextant-ci/lsp-servers/node_modules/typescript/lib/tsserver.js");
  try {
    return Deno.statSync(path).isFile ? path : null;
  } catch {
    return null;
  }
}

/** Whether a command is an executable on PATH. */
export function onPath(command: string): boolean {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (!dir) continue;
    try {
      const info = Deno.statSync(join(dir, command));
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return true;
    } catch { /* next */ }
  }
  return false;
}

/**
 * Call sites `name(` spread over the files (one per file per round), deterministic. Lines that
 * define (`def`, `class`, `function`) are skipped.
 */
export function callSites(committed: Map<string, string>, wanted: number): SourcePosition[] {
  const positions: SourcePosition[] = [];
  const sources = [...committed.keys()].sort();
  for (let round = 0; positions.length < wanted && round < 50; round++) {
    for (const path of sources) {
      const lines = committed.get(path)!.split("\n");
      let seen = 0;
      for (let i = 0; i < lines.length && positions.length < wanted; i++) {
        const match = /(?<![\w.$])([a-z_][A-Za-z0-9_]{3,})\(/.exec(lines[i]);
        if (!match || /^\s*(def|class|function|export function|async def)\s/.test(lines[i])) {
          continue;
        }
        if (seen++ !== round) continue;
        positions.push({ path, line: i + 1, column: match.index + 1 });
        break;
      }
    }
  }
  return positions;
}

/** Measures the routed overhead on a repository whose committed texts are `committed`. */
export async function measureLspOverhead(options: {
  root: string;
  language: string;
  committed: Map<string, string>;
  positions: number;
  rounds: number;
  log?: (line: string) => void;
}): Promise<LspOverheadResult> {
  const { root, language, committed } = options;
  const spec = LSP_BENCH_SERVERS[language];
  if (!spec) throw new RangeError(`no server to measure for ${language}`);
  const positions = callSites(committed, options.positions);
  if (positions.length === 0) throw new Error(`no call sites in the ${language} files`);
  const tsserver = language === "typescript" ? defaultTsserver() : null;
  const config = parseLspConfig({
    [language]: {
      command: spec.command,
      request_timeout_ms: 60_000,
      ready_timeout_ms: 300_000,
      ...(tsserver ? { initialization_options: { tsserver: { path: tsserver } } } : {}),
    },
  }, "bench");
  const server = config.get(language)!;
  const plan = launchPlan(server, { repositoryRoots: [root], hostEnv: Deno.env.toObject() });

  // Direct: one client, the file opened with its committed text, the request sent.
  let directReady = !plan.readyLog;
  const direct = LspClient.spawn(plan, {
    root,
    startTimeoutMs: 60_000,
    onLog: (message) => {
      if (plan.readyLog?.test(message)) directReady = true;
    },
  });
  // Routed: the manager's own server through the router.
  const manager = new LspManager({ config, repositories: [{ name: "bench", root }] });
  const router = new LspRouter(manager);
  try {
    await direct.initialize();
    const readyBy = Date.now() + 300_000;
    while (!directReady && Date.now() < readyBy) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const request = {
      repo: "bench",
      language,
      snapshot: { text: (path: string) => committed.get(path) ?? null },
      waitForReadyMs: 300_000,
      timeoutMs: 60_000,
    };
    let fallbacks = 0;
    const directCall = async (method: string, at: SourcePosition): Promise<number> => {
      direct.syncDocument(at.path, languageIdOf(at.path, language), committed.get(at.path)!);
      const params = {
        textDocument: { uri: pathToFileURL(join(root, at.path)).href },
        position: { line: at.line - 1, character: at.column - 1 },
        ...(method === "textDocument/references" ? { context: { includeDeclaration: false } } : {}),
      };
      const started = performance.now();
      await direct.request(method, params, 60_000).catch(() => null);
      return performance.now() - started;
    };
    const routedCall = async (method: string, at: SourcePosition): Promise<number> => {
      const started = performance.now();
      const answer = method === "textDocument/definition"
        ? await router.definition(request, at)
        : await router.references(request, at);
      const ms = performance.now() - started;
      // "no_result" (nothing at the site, e.g. an unresolved attribute) is a full round trip too.
      if (!answer.ok && answer.reason !== "no_result") fallbacks++;
      return ms;
    };

    // Warm both servers over every position (first analysis of each file is not measured).
    options.log?.(`  lsp: warming ${language} servers on ${positions.length} call sites…`);
    const warmStarted = performance.now();
    for (const at of positions) {
      await directCall("textDocument/definition", at);
      await routedCall("textDocument/definition", at);
    }
    const warmMs = performance.now() - warmStarted;
    fallbacks = 0;

    const rows: Record<string, LspOverheadRow> = {};
    for (const method of ["textDocument/definition", "textDocument/references"]) {
      const directMs: number[] = [];
      const routedMs: number[] = [];
      for (let round = 0; round < options.rounds; round++) {
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
      rows[method] = {
        samples: directMs.length,
        direct_p50_ms: quantile(directMs, 0.5),
        direct_p95_ms: quantile(directMs, 0.95),
        routed_p50_ms: quantile(routedMs, 0.5),
        routed_p95_ms: quantile(routedMs, 0.95),
        overhead_p50_ms: quantile(overhead, 0.5),
        overhead_p95_ms: quantile(overhead, 0.95),
      };
    }
    return {
      language,
      server: plan.executable,
      positions: positions.length,
      rounds: options.rounds,
      warm_up_ms: Math.round(warmMs),
      definition: rows["textDocument/definition"],
      references: rows["textDocument/references"],
      fallbacks,
      server_status: manager.status("bench")[0],
    };
  } finally {
    await direct.stop();
    await manager.dispose();
  }
}

function quantile(list: number[], q: number): number {
  const sorted = [...list].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 100) /
    100;
}

/**
 * `deno task bench --lsp`: the routed overhead on a target's first repository, with the server
 * of its most common language among those installed; null (and a note) when none applies.
 */
export async function benchLspOverhead(
  target: { workspaceDirectory: string; cacheDirectory: string },
  notes: string[],
  log: (line: string) => void,
): Promise<LspOverheadResult | null> {
  const workspace = await Workspace.open({
    directory: target.workspaceDirectory,
    cacheDirectory: target.cacheDirectory,
  });
  try {
    const repo = workspace.repositories[0];
    const files = workspace.withReader(repo, (reader) => [...reader.fileTable().files.values()])
      .value ?? [];
    let best: { language: string; paths: string[] } | null = null;
    for (const [language, spec] of Object.entries(LSP_BENCH_SERVERS)) {
      if (!onPath(spec.command[0])) continue;
      const paths = files.filter((file) => spec.files.test(file.path)).map((file) => file.path);
      if (paths.length > (best?.paths.length ?? 0)) best = { language, paths };
    }
    if (best === null) {
      notes.push("lsp overhead not measured: no installed server answers for this target's files");
      return null;
    }
    const library = best.paths.filter((path) => !/(^|\/)(tests?|docs?|examples?)\//.test(path));
    const committed = new Map<string, string>();
    workspace.withReader(repo, (reader) => {
      for (const path of library.length > 0 ? library : best!.paths) {
        const text = reader.fileText(path);
        if (text !== null) committed.set(path, text);
      }
    });
    return await measureLspOverhead({
      root: repo.root,
      language: best.language,
      committed,
      positions: 40,
      rounds: 3,
      log,
    });
  } catch (error) {
    notes.push(`lsp overhead not measured: ${(error as Error).message}`);
    return null;
  } finally {
    workspace.close();
  }
}
