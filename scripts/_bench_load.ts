/**
 * `deno task bench --clients N`: a real daemon on a copy of the tree, indexed,
 * then part of the copy edited and N socket clients issuing the mixed actions
 * for S seconds while a refresh of the changed files runs. Reports
 * p50/p95/p99 per action (overall and during the refresh), errors, throughput
 * and the daemon's RSS.
 */
import { join } from "node:path";
import { DaemonClient, RpcFailure } from "../src/daemon/client.ts";
import type { RefreshReport } from "../src/indexer/refresh.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import {
  appendedFunction,
  copyTree,
  editableFiles,
  paramsFor,
  pickQueries,
  removeTree,
  type Target,
} from "./_bench_corpus.ts";
import { log } from "./_bench_report.ts";
import {
  type LatencyStats,
  latencyStats,
  loadAverage,
  MB,
  processRss,
  round,
  RSS_INTERVAL_MS,
} from "./_bench_stats.ts";

export interface LoadOptions {
  clients: number;
  /** Seconds of load. */
  duration: number;
  /** Actions issued in turn. */
  mix: string[];
  /** The daemon's query Workers (its default when null). */
  queryWorkers: number | null;
  keep: boolean;
}

export interface ConcurrentResult {
  label: string;
  root: string;
  clients: number;
  duration_s: number;
  files: number;
  lines: number;
  cold_index_s: number;
  changed_files: number;
  refresh: { ms: number; parsed: number; plan: Record<string, number> } | null;
  actions: Record<string, LatencyStats & { errors: number; during_refresh: number }>;
  /** The same, over only the answers to requests sent while the refresh ran. */
  actions_during_refresh: Record<string, LatencyStats>;
  requests: number;
  errors: number;
  error_samples: string[];
  throughput_rps: number;
  daemon_peak_rss_mb: number;
  daemon_max_rss_during_load_mb: number;
  daemon_rss_after_mb: number;
  /** The daemon's answer-cache counters at the end (repeated identical queries). */
  daemon_cache: { hits: number; misses: number } | null;
  /** The machine's 1-minute load average before and after the load (other work included). */
  load_average: [number | null, number | null];
  cpus: number;
}

/** Latencies of one action under load. */
interface ActionSamples {
  ms: number[];
  duringMs: number[];
  errors: number;
  during: number;
}

/** A daemon process started for the bench, and the client that controls it. */
interface BenchDaemon {
  process: Deno.ChildProcess;
  control: DaemonClient;
  pid: number;
}

export async function benchConcurrent(
  target: Target,
  options: LoadOptions,
): Promise<ConcurrentResult> {
  const work = Deno.makeTempDirSync({ prefix: "sextant-bench-concurrent-" });
  const tree = join(work, "tree");
  const cache = join(work, "cache");
  const socket = join(work, "run", "d.sock");
  log(`${target.label}: copying to ${tree}…`);
  await copyTree(target.directory, tree);
  const process = spawnDaemon({ tree, cache, socket, queryWorkers: options.queryWorkers });
  try {
    const daemon = await connectDaemon(process, socket);
    log("  cold index through the daemon…");
    const coldStarted = performance.now();
    const cold = await daemon.control.request("refresh", {}) as {
      data: { reports: { files: number; lines: number }[] };
    };
    const coldMs = performance.now() - coldStarted;
    const { queries, changed } = await editTree({ tree, cache, files: cold.data.reports[0].files });
    log(
      `  ${changed.length} files changed; ${options.clients} clients × ${options.duration}s of ` +
        `${options.mix.join("/")} during the refresh…`,
    );
    const load = await runLoad({ daemon, socket, queries, options });
    const rss = processRss(daemon.pid);
    const finalStatus = await daemon.control.request("status").catch(() => null) as
      | { data: { daemon: { cache: { hits: number; misses: number } } } }
      | null;
    for (const client of load.clients) client.close();
    daemon.control.close();
    const summary = summariseSamples(load.samples);
    return {
      label: target.label,
      root: target.directory,
      clients: options.clients,
      duration_s: round(load.ms / 1000, 1),
      files: cold.data.reports[0].files,
      lines: cold.data.reports[0].lines,
      cold_index_s: round(coldMs / 1000, 2),
      changed_files: changed.length,
      refresh: load.refresh,
      ...summary,
      error_samples: load.errorSamples,
      throughput_rps: round(summary.requests / (load.ms / 1000), 1),
      daemon_peak_rss_mb: round(rss.peak / MB, 0),
      daemon_max_rss_during_load_mb: round(load.maxRss / MB, 0),
      daemon_rss_after_mb: round(rss.rss / MB, 0),
      daemon_cache: finalStatus?.data.daemon.cache ?? null,
      load_average: load.loadAverage,
      cpus: navigator.hardwareConcurrency,
    };
  } finally {
    try {
      process.kill("SIGTERM");
    } catch { /* gone */ }
    await process.status;
    if (!options.keep) removeTree(work);
  }
}

function spawnDaemon(
  options: { tree: string; cache: string; socket: string; queryWorkers: number | null },
): Deno.ChildProcess {
  const { queryWorkers } = options;
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-worker-options",
      "--allow-all",
      new URL("../src/main.ts", import.meta.url).pathname,
      "daemon",
      "--quiet",
      ...(queryWorkers === null ? [] : ["--query-workers", String(queryWorkers)]),
      "--socket",
      options.socket,
      "--workspace",
      options.tree,
    ],
    env: { SEXTANT_CACHE_DIR: options.cache },
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
}

/** Waits up to a minute for the daemon to answer, then introduces the bench to it. */
async function connectDaemon(process: Deno.ChildProcess, socket: string): Promise<BenchDaemon> {
  const deadline = Date.now() + 60_000;
  let control: DaemonClient | null = null;
  while (!control && Date.now() < deadline) {
    control = await DaemonClient.connect(socket).catch(() => null);
    if (!control) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!control) throw new Error("the daemon did not start");
  const hello = await control.request("initialize", { agent: "bench" }) as {
    server: { pid: number };
  };
  return { process, control, pid: hello.server.pid };
}

/**
 * Picks the identifiers to ask for (many, so the answer cache rarely answers;
 * its hits are reported) and appends a function to a tenth of the files (at
 * least 200), read from the index the daemon just built.
 */
async function editTree(
  options: { tree: string; cache: string; files: number },
): Promise<{ queries: string[]; changed: string[] }> {
  const workspace = await Workspace.open({
    directory: options.tree,
    cacheDirectory: options.cache,
  });
  const indexed = { workspace, repo: workspace.repositories[0] };
  const queries = pickQueries(indexed, 2000);
  const changed = editableFiles(indexed, Math.max(200, Math.round(options.files / 10)));
  workspace.close();
  for (const [n, path] of changed.entries()) {
    Deno.writeTextFileSync(join(options.tree, path), appendedFunction(path, n), { append: true });
  }
  return { queries, changed };
}

/** The clients' requests for the duration, while one refresh of the edited tree runs. */
async function runLoad(options: {
  daemon: BenchDaemon;
  socket: string;
  queries: string[];
  options: LoadOptions;
}) {
  const { daemon, queries } = options;
  const { clients: count, duration, mix } = options.options;
  const clients = await Promise.all(
    Array.from({ length: count }, () => DaemonClient.connect(options.socket)),
  );
  const record = new LoadRecord(mix);
  let maxRss = 0;
  const rssTimer = setInterval(() => {
    maxRss = Math.max(maxRss, processRss(daemon.pid).rss);
  }, RSS_INTERVAL_MS);
  const loadStarted = performance.now();
  const stopAt = loadStarted + duration * 1000;
  const refresh = timedRefresh(daemon.control, record);
  const loadBefore = loadAverage();
  let issued = 0;
  await Promise.all(clients.map(async (client) => {
    while (performance.now() < stopAt) {
      const i = issued++;
      const action = mix[i % mix.length];
      const identifier = queries[(i * 7919) % Math.max(1, queries.length)] ?? "main";
      await record.time(action, () => client.request(action, paramsFor(action, identifier)));
    }
  }));
  const loadAfter = loadAverage();
  const ms = performance.now() - loadStarted;
  const refreshResult = await refresh;
  clearInterval(rssTimer);
  return {
    clients,
    samples: record.samples,
    errorSamples: record.errorSamples,
    ms,
    maxRss,
    refresh: refreshResult,
    loadAverage: [loadBefore, loadAfter] as [number | null, number | null],
  };
}

/** The refresh the load runs against; the record knows while it runs. */
async function timedRefresh(
  control: DaemonClient,
  record: LoadRecord,
): Promise<ConcurrentResult["refresh"]> {
  const started = performance.now();
  try {
    const answer = await control.request("refresh", {});
    const report = (answer as { data: { reports: RefreshReport[] } }).data.reports[0];
    return { ms: round(performance.now() - started, 1), parsed: report.parsed, plan: report.plan };
  } catch (error) {
    record.errorSamples.push(`refresh: ${(error as Error).message}`);
    return null;
  } finally {
    record.refreshing = false;
  }
}

/** Latencies and errors per action, split by whether the refresh was running when sent. */
class LoadRecord {
  readonly samples: Map<string, ActionSamples>;
  readonly errorSamples: string[] = [];
  refreshing = true;

  constructor(actions: string[]) {
    this.samples = new Map(
      actions.map((action) => [action, { ms: [], duringMs: [], errors: 0, during: 0 }]),
    );
  }

  /** Times one request; a failure is counted (and the first ten kept), never thrown. */
  async time(action: string, request: () => Promise<unknown>): Promise<void> {
    const bucket = this.samples.get(action)!;
    const during = this.refreshing;
    const started = performance.now();
    try {
      await request();
      bucket.ms.push(performance.now() - started);
      if (during) {
        bucket.during++;
        bucket.duringMs.push(performance.now() - started);
      }
    } catch (error) {
      bucket.errors++;
      if (this.errorSamples.length < 10) {
        const code = error instanceof RpcFailure ? error.code : "";
        this.errorSamples.push(`${action}: ${code} ${(error as Error).message}`);
      }
    }
  }
}

function summariseSamples(samples: Map<string, ActionSamples>) {
  const actions: ConcurrentResult["actions"] = {};
  const actionsDuring: ConcurrentResult["actions_during_refresh"] = {};
  let requests = 0;
  let errors = 0;
  for (const [action, bucket] of samples) {
    actions[action] = {
      ...latencyStats(bucket.ms.map((ms) => ({ query: "", ms, hits: 0 }))),
      errors: bucket.errors,
      during_refresh: bucket.during,
    };
    actionsDuring[action] = latencyStats(
      bucket.duringMs.map((ms) => ({ query: "", ms, hits: 0 })),
    );
    requests += bucket.ms.length + bucket.errors;
    errors += bucket.errors;
  }
  return { actions, actions_during_refresh: actionsDuring, requests, errors };
}
