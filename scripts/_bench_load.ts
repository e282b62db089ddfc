/**
 * A real daemon serving the indexed target, measured from outside: a child
 * `sextant daemon` on the target's workspace and cache (already indexed by
 * the cold index, so it starts on a current target). In turn:
 *
 * 1. one client asks search, symbols and definition one at a time over
 *    distinct definitions (socket latency with no contention);
 * 2. N clients issue the mix for S seconds with nothing else running
 *    ("serving"): latencies, errors, throughput, the daemon's largest VmRSS;
 * 3. a tenth of the indexed files (at least 200, at most 1000) get a
 *    function appended and N clients issue the mix while the daemon
 *    refreshes them, until the
 *    refresh is done and at least S seconds passed; the answers to requests
 *    sent while the refresh ran are reported on their own.
 *
 * The daemon's VmHWM at the end covers its whole life, that refresh included.
 * The changed files get their bytes and mtimes back afterwards.
 *
 * Run alone, it measures only this (no actions timed in-process, no peers):
 *
 *   deno run --unstable-worker-options --allow-all scripts/_bench_load.ts \
 *     --path /work/sympy --path /work/src-denoland+std [--clients 16] [--duration 10]
 *     [--query-workers N] [--daemon-v8-flags F] [--keep | --work DIR] [--json FILE]
 *
 * Several `--path`s make one workspace of those repositories (a copy of each,
 * indexed cold first). `--keep` keeps the copy and its index and prints their
 * directory; `--work DIR` measures such a kept directory again, with no copy
 * and no cold index.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DaemonClient, RpcFailure } from "../src/daemon/client.ts";
import type { RefreshReport } from "../src/indexer/refresh.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { POOL_IDLE_MS } from "../src/workspace/refresh_priority.ts";
import { paramsFor } from "./_bench_actions.ts";
import { coldIndex } from "./_bench_cold.ts";
import {
  appendedFunction,
  type Definition,
  editableFiles,
  prepareTarget,
  removeTree,
  scanDefinitions,
  spread,
  type Target,
} from "./_bench_corpus.ts";
import { log } from "./_bench_report.ts";
import { SERVING_V8_FLAGS, v8FlagsArgument } from "./_serving_flags.ts";
import {
  type LatencyStats,
  loadAverage,
  MB,
  percentile,
  processRss,
  ProcessRssSampler,
  round,
  threadCpu,
  timingStats,
} from "./_bench_stats.ts";

export interface LoadOptions {
  clients: number;
  /** Seconds of each load phase. */
  duration: number;
  /** Actions issued in turn. */
  mix: string[];
  /** The daemon's query Workers (its default when null). */
  queryWorkers: number | null;
  /** V8 flags of the daemon's command line (`SERVING_V8_FLAGS`, as `deno task daemon` has). */
  v8Flags: string[];
}

/** Actions one client times one at a time, before the load. */
export const SERIAL_ACTIONS = ["search", "symbols", "definition"];

export type ActionLoad = LatencyStats & { errors: number };

export interface LoadPhase {
  seconds: number;
  requests: number;
  errors: number;
  throughput_rps: number;
  actions: Record<string, ActionLoad>;
  /** The daemon's largest VmRSS sampled during the phase. */
  rss_max_mb: number;
  /** CPU seconds the daemon's threads spent in the phase, by thread name (Linux). */
  cpu_s: Record<string, number>;
}

export interface DaemonResult {
  clients: number;
  duration_s: number;
  mix: string[];
  query_workers: number | null;
  /** The daemon's V8 flags. */
  v8_flags: string[];
  /** Seconds from spawning the daemon to its answer to `initialize`. */
  startup_s: number;
  /** The daemon's first `refresh`, through the socket, on the target the cold index left. */
  first_refresh: { ms: number; parsed: number };
  /** One client, one request at a time, distinct definitions. */
  serial: Record<string, ActionLoad>;
  /** The daemon's VmRSS after the serial requests: serving, idle. */
  rss_idle_mb: number;
  serving: LoadPhase;
  during_refresh: LoadPhase & {
    changed_files: number;
    refresh: { ms: number; parsed: number } | null;
    /** The same, over only the answers to requests sent while the refresh ran. */
    sent_while_refreshing: Record<string, ActionLoad>;
  };
  /** VmHWM at the end: the daemon's peak over its life (the refresh included). */
  peak_rss_mb: number;
  rss_after_mb: number;
  /**
   * VmRSS once the daemon has settled after the refresh: its parse Workers closed (they stay
   * `POOL_IDLE_MS` after the last refresh) and one fresh Worker standing by, no request since.
   */
  rss_settled_mb: number;
  /**
   * A one-file refresh through the socket once settled (the pool closed after `POOL_IDLE_MS`,
   * one fresh Worker standing by: an agent's refresh after a pause), then one more at once (the
   * Worker that parsed the first alive). Null when no file was changed.
   */
  one_file_refresh: { after_pause_ms: number; pool_alive_ms: number } | null;
  /**
   * One `query` process (`deno run` with the `query` task's flags, `symbols` of a definition),
   * start to exit, median of `CLI_RUNS`: answered by the daemon, and `--embedded` (this process
   * opens the target); what an agent that calls the CLI waits each time.
   */
  cli: { daemon_ms: number; embedded_ms: number } | null;
  /** The daemon's answer-cache counters at the end. */
  cache: { hits: number; misses: number } | null;
  error_samples: string[];
  load_average: [number | null, number | null];
}

/** A tenth of the indexed files, at least 200 (all of a small tree), at most 1000. */
function changedFileCount(indexed: number): number {
  return Math.min(1000, Math.max(200, Math.round(indexed / 10)));
}

/** A daemon process started for the bench, and the client that controls it. */
interface BenchDaemon {
  process: Deno.ChildProcess;
  control: DaemonClient;
  socket: string;
}

export async function benchDaemon(
  target: Target,
  options: LoadOptions & {
    /** Asked one at a time by one client (distinct). */
    serial: Definition[];
    /** Asked in turn by the load clients. */
    definitions: Definition[];
    /** Indexed files: a tenth of them change during the load (see changedFileCount). */
    files: number;
  },
): Promise<DaemonResult> {
  const socket = join(target.workDirectory, "run", "d.sock");
  const loadBefore = loadAverage();
  const started = performance.now();
  const process = spawnDaemon(target, socket, options);
  const originals: { full: string; bytes: Uint8Array; atime: Date | null; mtime: Date | null }[] =
    [];
  try {
    const daemon = await connectDaemon(process, socket);
    const startup_s = round((performance.now() - started) / 1000, 2);
    const firstStarted = performance.now();
    const firstAnswer = await daemon.control.request("refresh", {}) as {
      data: { reports: RefreshReport[] };
    };
    const first_refresh = {
      ms: round(performance.now() - firstStarted, 1),
      parsed: firstAnswer.data.reports.reduce((n, r) => n + r.parsed, 0),
    };
    log(`  daemon: serial ${SERIAL_ACTIONS.join("/")}…`);
    const serial = await serialRequests(daemon.control, options.serial);
    const rss_idle_mb = round(processRss(process.pid).rss / MB, 1);
    log("  daemon: query processes, through the daemon and embedded…");
    const cli = options.serial.length > 0
      ? {
        daemon_ms: await queryProcessMs(target, socket, options.serial[0].name, false),
        embedded_ms: await queryProcessMs(target, socket, options.serial[0].name, true),
      }
      : null;
    const errorSamples: string[] = [];
    log(`  daemon: ${options.clients} clients × ${options.duration}s of ${options.mix.join("/")}…`);
    const serving = await loadPhase({
      daemon,
      options,
      errorSamples,
      until: (elapsed) => elapsed >= options.duration * 1000,
    });
    const changed = editableFiles(target, changedFileCount(options.files));
    for (const [n, file] of changed.entries()) {
      const full = join(file.root, file.path);
      const stat = Deno.statSync(full);
      originals.push({
        full,
        bytes: Deno.readFileSync(full),
        atime: stat.atime,
        mtime: stat.mtime,
      });
      Deno.writeTextFileSync(full, appendedFunction(file.path, n), { append: true });
    }
    log(
      `  daemon: ${options.clients} clients during a refresh of ${changed.length} changed files…`,
    );
    const refresh = refreshUnderLoad(daemon.control, errorSamples);
    const during = await loadPhase({
      daemon,
      options,
      errorSamples,
      onStart: refresh.start,
      refreshing: refresh.running,
      until: (elapsed) => refresh.finished() && elapsed >= options.duration * 1000,
    });
    const refreshResult = await refresh.result();
    const rss = processRss(process.pid);
    await new Promise((resolve) => setTimeout(resolve, POOL_IDLE_MS + 5_000));
    const settled = processRss(process.pid);
    let one_file_refresh: DaemonResult["one_file_refresh"] = null;
    if (originals.length > 0) {
      const timedEdit = async (n: number) => {
        Deno.writeTextFileSync(originals[0].full, appendedFunction(changed[0].path, n), {
          append: true,
        });
        const editStarted = performance.now();
        await daemon.control.request("refresh", {});
        return round(performance.now() - editStarted, 1);
      };
      const after_pause_ms = await timedEdit(changed.length);
      one_file_refresh = { after_pause_ms, pool_alive_ms: await timedEdit(changed.length + 1) };
    }
    const status = await daemon.control.request("status").catch(() => null) as
      | { data?: { daemon?: { cache?: { hits: number; misses: number } } } }
      | null;
    daemon.control.close();
    return {
      clients: options.clients,
      duration_s: options.duration,
      mix: options.mix,
      query_workers: options.queryWorkers,
      v8_flags: options.v8Flags,
      startup_s,
      first_refresh,
      serial,
      rss_idle_mb,
      serving: serving.phase,
      during_refresh: {
        ...during.phase,
        changed_files: changed.length,
        refresh: refreshResult,
        sent_while_refreshing: during.whileRefreshing,
      },
      peak_rss_mb: round(rss.peak / MB, 1),
      rss_after_mb: round(rss.rss / MB, 1),
      rss_settled_mb: round(settled.rss / MB, 1),
      one_file_refresh,
      cli,
      cache: status?.data?.daemon?.cache ?? null,
      error_samples: errorSamples,
      load_average: [loadBefore, loadAverage()],
    };
  } finally {
    try {
      process.kill("SIGTERM");
    } catch { /* gone */ }
    await process.status;
    for (const { full, bytes, atime, mtime } of originals) {
      Deno.writeFileSync(full, bytes);
      if (atime && mtime) Deno.utimeSync(full, atime, mtime);
    }
  }
}

function spawnDaemon(target: Target, socket: string, options: LoadOptions) {
  const { queryWorkers } = options;
  return new Deno.Command(Deno.execPath(), {
    args: sextantArgs(options.v8Flags, [
      "daemon",
      "--quiet",
      ...(queryWorkers === null ? [] : ["--query-workers", String(queryWorkers)]),
    ], { socket, target }),
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
}

/** `deno run` arguments of a Sextant command on the bench's socket, cache and workspace. */
function sextantArgs(
  v8Flags: string[],
  command: string[],
  at: { socket: string; target: Target },
): string[] {
  return [
    "run",
    "--unstable-worker-options",
    "--allow-all",
    ...v8FlagsArgument(v8Flags),
    new URL("../src/main.ts", import.meta.url).pathname,
    ...command,
    "--socket",
    at.socket,
    "--cache-dir",
    at.target.cacheDirectory,
    "--workspace",
    at.target.workspaceDirectory,
  ];
}

/** `query` processes timed per figure of `DaemonResult.cli`. */
const CLI_RUNS = 5;

/**
 * Median milliseconds of `CLI_RUNS` `query symbols NAME` processes, each started with the
 * `query` task's flags, through the daemon on `socket` or `--embedded`.
 */
async function queryProcessMs(
  target: Target,
  socket: string,
  name: string,
  embedded: boolean,
): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < CLI_RUNS; run++) {
    const started = performance.now();
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        ...sextantArgs(SERVING_V8_FLAGS, ["query"], { socket, target }),
        ...(embedded ? ["--embedded"] : []),
        "symbols",
        name,
      ],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    times.push(performance.now() - started);
    // 1: nothing found, still an answer; 2: a failure, which the figure must not hide.
    if (output.code === 2) {
      throw new Error(`query symbols ${name} failed: ${new TextDecoder().decode(output.stderr)}`);
    }
  }
  return round(percentile(times, 50), 1);
}

/** Waits up to two minutes for the daemon to answer, then introduces the bench to it. */
async function connectDaemon(process: Deno.ChildProcess, socket: string): Promise<BenchDaemon> {
  const deadline = Date.now() + 120_000;
  let control: DaemonClient | null = null;
  while (!control && Date.now() < deadline) {
    control = await DaemonClient.connect(socket).catch(() => null);
    if (!control) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!control) throw new Error("the daemon did not start");
  await control.request("initialize", { agent: "bench" });
  return { process, control, socket };
}

async function serialRequests(
  control: DaemonClient,
  definitions: Definition[],
): Promise<Record<string, ActionLoad>> {
  const serial: Record<string, ActionLoad> = {};
  for (const action of SERIAL_ACTIONS) {
    const ms: number[] = [];
    let errors = 0;
    for (const definition of definitions) {
      const started = performance.now();
      try {
        await control.request(action, paramsFor(action, definition));
        ms.push(performance.now() - started);
      } catch {
        errors++;
      }
    }
    serial[action] = { ...timingStats(ms), errors };
  }
  return serial;
}

/** N clients issuing the mix in turn until `until(elapsed ms)` says stop. */
async function loadPhase(options: {
  daemon: BenchDaemon;
  options: LoadOptions & { definitions: Definition[] };
  errorSamples: string[];
  until: (elapsedMs: number) => boolean;
  /** Called once the clients are connected, just before the first request. */
  onStart?: () => void;
  /** While this says true, answers are also counted as sent during the refresh. */
  refreshing?: () => boolean;
}): Promise<{ phase: LoadPhase; whileRefreshing: Record<string, ActionLoad> }> {
  const { daemon, errorSamples } = options;
  const { clients: count, mix, definitions } = options.options;
  const clients = await Promise.all(
    Array.from({ length: count }, () => DaemonClient.connect(daemon.socket)),
  );
  const all = new Map(mix.map((action) => [action, { ms: [] as number[], errors: 0 }]));
  const during = new Map(mix.map((action) => [action, { ms: [] as number[], errors: 0 }]));
  const sampler = new ProcessRssSampler(daemon.process.pid).start();
  const cpuBefore = threadCpu(daemon.process.pid);
  options.onStart?.();
  const started = performance.now();
  let issued = 0;
  await Promise.all(clients.map(async (client) => {
    while (!options.until(performance.now() - started)) {
      const i = issued++;
      const action = mix[i % mix.length];
      const definition = definitions[(i * 7919) % definitions.length];
      const whileRefreshing = options.refreshing?.() ?? false;
      const sent = performance.now();
      try {
        await client.request(action, paramsFor(action, definition));
        const ms = performance.now() - sent;
        all.get(action)!.ms.push(ms);
        if (whileRefreshing) during.get(action)!.ms.push(ms);
      } catch (error) {
        all.get(action)!.errors++;
        if (whileRefreshing) during.get(action)!.errors++;
        if (errorSamples.length < 10) {
          const code = error instanceof RpcFailure ? error.code : "";
          errorSamples.push(`${action}: ${code} ${(error as Error).message}`);
        }
      }
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const rss = sampler.stop();
  const cpuAfter = threadCpu(daemon.process.pid);
  for (const client of clients) client.close();
  const summarise = (buckets: typeof all) =>
    Object.fromEntries(
      [...buckets].map(([action, b]) => [action, { ...timingStats(b.ms), errors: b.errors }]),
    );
  const actions = summarise(all);
  const requests = [...all.values()].reduce((n, b) => n + b.ms.length + b.errors, 0);
  const errors = [...all.values()].reduce((n, b) => n + b.errors, 0);
  return {
    phase: {
      seconds: round(seconds, 2),
      requests,
      errors,
      throughput_rps: round(requests / seconds, 1),
      actions,
      rss_max_mb: round(rss.maxRss / MB, 1),
      cpu_s: cpuByName(daemon.process.pid, cpuBefore, cpuAfter),
    },
    whileRefreshing: summarise(during),
  };
}

/**
 * CPU seconds between two samples, by thread name (Deno names Workers `worker-N` in the order
 * they start; V8's own threads `V8 DefaultWorke…`; the runtime's `tokio-runtime-w`); threads
 * that ended between the samples are not counted.
 */
function cpuByName(
  pid: number,
  before: Map<string, { name: string; s: number }>,
  after: Map<string, { name: string; s: number }>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [tid, { name, s }] of after) {
    const spent = s - (before.get(tid)?.s ?? 0);
    const key = tid === String(pid) ? "main" : name;
    out[key] = round((out[key] ?? 0) + spent, 2);
  }
  return Object.fromEntries(
    Object.entries(out).filter(([, s]) => s > 0).sort(([a], [b]) => a < b ? -1 : 1),
  );
}

/**
 * A refresh through the control client, started by the load phase once its
 * clients are connected (so the first requests are sent while it runs).
 */
function refreshUnderLoad(control: DaemonClient, errorSamples: string[]) {
  let started = false;
  let finished = false;
  let result: Promise<{ ms: number; parsed: number } | null> = Promise.resolve(null);
  const run = async () => {
    const startedAt = performance.now();
    try {
      const answer = await control.request("refresh", {}) as { data: { reports: RefreshReport[] } };
      const parsed = answer.data.reports.reduce((n, r) => n + r.parsed, 0);
      return { ms: round(performance.now() - startedAt, 1), parsed };
    } catch (error) {
      errorSamples.push(`refresh: ${(error as Error).message}`);
      return null;
    } finally {
      finished = true;
    }
  };
  return {
    start: () => {
      started = true;
      result = run();
    },
    running: () => started && !finished,
    finished: () => finished,
    result: () => result,
  };
}

/** What `--keep` leaves beside the copies, so `--work` can measure them again. */
interface KeptTarget {
  target: Omit<Target, "cleanup">;
  files: number;
}

const USAGE = `usage: deno run --unstable-worker-options --allow-all scripts/_bench_load.ts
  (--path DIR... [--keep] | --work DIR) [--clients N] [--duration S] [--mix A,B,...]
  [--query-workers N] [--daemon-v8-flags F] [--json FILE]`;

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      path: { type: "string", multiple: true },
      work: { type: "string" },
      keep: { type: "boolean" },
      clients: { type: "string", default: "16" },
      duration: { type: "string", default: "10" },
      mix: { type: "string", default: "search,symbols,definition" },
      "query-workers": { type: "string" },
      "daemon-v8-flags": { type: "string" },
      json: { type: "string" },
    },
  });
  const paths = values.path ?? [];
  if ((paths.length === 0) === !values.work) {
    console.error(USAGE);
    Deno.exit(2);
  }
  let kept: KeptTarget;
  let target: Target;
  if (values.work) {
    kept = JSON.parse(Deno.readTextFileSync(join(values.work, "load-target.json")));
    target = { ...kept.target, cleanup: () => {} };
    // The last run put back the files it changed: the index catches up here, not in the daemon.
    const workspace = await Workspace.open({
      directory: target.workspaceDirectory,
      cacheDirectory: target.cacheDirectory,
    });
    try {
      for (const repo of workspace.repositories) await workspace.refresh(repo);
    } finally {
      workspace.close();
    }
  } else {
    target = await prepareTarget({ kind: "path", directories: paths }, {
      seed: 1,
      keep: values.keep ?? false,
    });
    log(`${target.label}: cold index in a child process…`);
    const cold = await coldIndex(target);
    log(`  cold index: ${cold.s.toFixed(2)}s, ${cold.files} files`);
    const { cleanup: _, ...plain } = target;
    kept = { target: plain, files: cold.files };
    if (values.keep) {
      Deno.writeTextFileSync(join(target.workDirectory, "load-target.json"), JSON.stringify(kept));
    }
  }
  try {
    // The same definitions as the whole bench: the first 4000 files scanned, spread.
    const found = scanDefinitions(target, { maxFiles: 4000 });
    const result = await benchDaemon(target, {
      clients: Number(values.clients),
      duration: Number(values.duration),
      mix: values.mix.split(",").filter(Boolean),
      queryWorkers: values["query-workers"] === undefined ? null : Number(values["query-workers"]),
      v8Flags: values["daemon-v8-flags"] === undefined
        ? SERVING_V8_FLAGS
        : values["daemon-v8-flags"].split(",").filter(Boolean),
      serial: spread(found, 100),
      definitions: spread(found, 2000),
      files: kept.files,
    });
    if (values.json) Deno.writeTextFileSync(values.json, JSON.stringify(result, null, 1));
    console.log(summary(target.label, result));
  } finally {
    // Socket and log of the run go; the copies and their index stay only when kept.
    try {
      removeTree(join(target.workDirectory, "run"));
    } catch { /* none */ }
    target.cleanup();
  }
}

/** The figures of one run, one line each. */
export function summary(label: string, result: DaemonResult): string {
  const line = (name: string, actions: Record<string, ActionLoad>) =>
    `${name.padEnd(18)} ` +
    Object.entries(actions).map(([action, s]) =>
      `${action} p50 ${s.p50_ms} p99 ${s.p99_ms}${s.errors ? ` (${s.errors} errors)` : ""}`
    ).join(" | ");
  return [
    `${label}: ${result.clients} clients, query workers ${result.query_workers ?? "default"}, ` +
    `v8 flags ${result.v8_flags.join(",") || "none"}`,
    line("serial", result.serial),
    line("serving", result.serving.actions) +
    ` | ${result.serving.throughput_rps} rps, RSS max ${result.serving.rss_max_mb} MB`,
    `serving CPU s     ${JSON.stringify(result.serving.cpu_s)}`,
    line("during refresh", result.during_refresh.actions) +
    ` | ${result.during_refresh.throughput_rps} rps, RSS max ${result.during_refresh.rss_max_mb} MB`,
    `refresh CPU s     ${JSON.stringify(result.during_refresh.cpu_s)}`,
    line("while refreshing", result.during_refresh.sent_while_refreshing) +
    ` | refresh ${result.during_refresh.refresh?.ms} ms, ${result.during_refresh.refresh?.parsed} parsed`,
    `one-file refresh  ${
      result.one_file_refresh
        ? `${result.one_file_refresh.after_pause_ms} ms after a pause (the standby Worker), ` +
          `${result.one_file_refresh.pool_alive_ms} ms with it alive`
        : "none"
    }`,
    `RSS idle ${result.rss_idle_mb} MB, peak ${result.peak_rss_mb} MB, after ${result.rss_after_mb} MB, settled ${result.rss_settled_mb} MB; ` +
    `errors ${result.serving.errors + result.during_refresh.errors} ${
      result.error_samples.join("; ")
    }`,
  ].join("\n");
}

if (import.meta.main) await main(Deno.args);
