/**
 * `deno task bench`: cold index, no-op refresh, one-file-change refresh, query
 * latency, peak RSS and target size, per tree, beside universal-ctags and
 * ripgrep when they are installed.
 *
 *   deno task bench [--path DIR]... [--synthetic LINES]... [--seed N]
 *                   [--runs N] [--json FILE] [--keep]
 *   deno task bench --clients N [--duration S] [--mix search,symbols,status] [--path DIR]...
 *
 * Concurrent mode (`--clients`) starts a real daemon on a copy of each tree,
 * indexes it, edits part of the copy, and runs N socket clients issuing the
 * mixed actions for S seconds while a refresh of the changed tree runs:
 * p50/p95/p99 per action, errors, throughput and the daemon's RSS.
 *
 * With neither `--path` nor `--synthetic`, measures `--synthetic 50000`.
 * The parts: `_bench_corpus.ts` (trees, edits, queries), `_bench_sextant.ts`
 * (in-process measurements), `_bench_peers.ts` (ctags, rg), `_bench_load.ts`
 * (the concurrent daemon), `_bench_stats.ts` (percentiles, RSS) and
 * `_bench_report.ts` (tables and JSON).
 */
import { parseArgs } from "node:util";
import { prepareTarget, type Target, type TargetSpec } from "./_bench_corpus.ts";
import { benchConcurrent, type ConcurrentResult, type LoadOptions } from "./_bench_load.ts";
import { measurePeers } from "./_bench_peers.ts";
import {
  printConcurrent,
  printReport,
  type TargetResult,
  writeConcurrentJson,
  writeJson,
} from "./_bench_report.ts";
import { benchSextant } from "./_bench_sextant.ts";

interface BenchArgs {
  targets: TargetSpec[];
  seed: number;
  runs: number;
  json: string | null;
  keep: boolean;
  /** Concurrent mode when set. */
  load: LoadOptions | null;
}

const USAGE = `usage: deno task bench [--path DIR]... [--synthetic LINES]... [--seed N]
                       [--runs N] [--json FILE] [--keep]
  --path DIR         a repository to measure (repeatable)
  --synthetic LINES  generate a synthetic corpus of about LINES lines (repeatable)
  --seed N           seed of synthetic corpora (default 1)
  --runs N           timed runs per query action (default 50)
  --json FILE        also write the results as JSON
  --keep             keep generated corpora (their paths are printed)
  --clients N        concurrent mode: N socket clients against a real daemon
  --duration S       concurrent mode: seconds of load (default 20)
  --mix A,B,...      concurrent mode: actions issued in turn (default search,symbols,status)
  --query-workers N  concurrent mode: the daemon's query Workers (default: the daemon's)
Without --path or --synthetic: --synthetic 50000.`;

function parseBenchArgs(argv: string[]): BenchArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      path: { type: "string", multiple: true },
      synthetic: { type: "string", multiple: true },
      seed: { type: "string" },
      runs: { type: "string" },
      json: { type: "string" },
      keep: { type: "boolean" },
      clients: { type: "string" },
      duration: { type: "string" },
      mix: { type: "string" },
      "query-workers": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    Deno.exit(0);
  }
  const paths = values.path ?? [];
  const synthetic = (values.synthetic ?? []).map((v) => positiveInt("--synthetic", v));
  if (paths.length === 0 && synthetic.length === 0) synthetic.push(50_000);
  const keep = values.keep ?? false;
  const clients = values.clients ? positiveInt("--clients", values.clients) : null;
  const duration = values.duration ? positiveInt("--duration", values.duration) : 20;
  const mix = (values.mix ?? "search,symbols,status").split(",").filter(Boolean);
  const queryWorkers = values["query-workers"] === undefined
    ? null
    : Number(values["query-workers"]);
  return {
    targets: [
      ...paths.map((directory): TargetSpec => ({ kind: "path", directory })),
      ...synthetic.map((lines): TargetSpec => ({ kind: "synthetic", lines })),
    ],
    seed: values.seed ? positiveInt("--seed", values.seed) : 1,
    runs: values.runs ? positiveInt("--runs", values.runs) : 50,
    json: values.json ?? null,
    keep,
    load: clients ? { clients, duration, mix, queryWorkers, keep } : null,
  };
}

function positiveInt(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} needs a positive integer`);
  return n;
}

/** Runs `measure` on each tree in turn, generating and removing synthetic corpora around it. */
async function eachTarget<T>(
  args: BenchArgs,
  measure: (target: Target) => Promise<T>,
): Promise<T[]> {
  const results: T[] = [];
  for (const spec of args.targets) {
    const target = prepareTarget(spec, args);
    try {
      results.push(await measure(target));
    } finally {
      target.cleanup();
    }
  }
  return results;
}

async function main(argv: string[]): Promise<void> {
  const args = parseBenchArgs(argv);
  const startedAt = new Date().toISOString();
  const load = args.load;
  if (load) {
    const results: ConcurrentResult[] = await eachTarget(
      args,
      (target) => benchConcurrent(target, load),
    );
    printConcurrent(results);
    if (args.json) writeConcurrentJson({ path: args.json, startedAt, results });
    return;
  }
  const results = await eachTarget(args, async (target): Promise<TargetResult> => {
    const { root, sextant } = await benchSextant(target, args);
    // Peers run after the workspace is closed, so idle Workers and readers cost them nothing.
    const peers = await measurePeers(root, sextant);
    const result: TargetResult = { label: target.label, kind: target.kind, root, sextant, peers };
    if (target.synthetic) result.synthetic = target.synthetic;
    return result;
  });
  printReport(results);
  if (args.json) writeJson({ path: args.json, startedAt, results });
}

if (import.meta.main) {
  try {
    await main(Deno.args);
  } catch (error) {
    console.error(`bench: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
