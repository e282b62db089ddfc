/**
 * Search latency in this process, as `deno task bench` measures it in its
 * actions table (the same definitions, warm-up and params), on a target built
 * once and kept: the first run copies the tree and indexes it into `--work`;
 * later runs reuse it. For a CPU profile, run it under `deno run --cpu-prof`
 * with `--rounds N` (the timed queries are asked N times; the first round is
 * the bench's figure, distinct queries). `--dump FILE` writes every answer
 * of the timed queries (and of `--queries FILE.jsonl`'s `query` fields) under
 * each strategy, for a before/after diff of what search returns.
 *
 *   deno run --unstable-worker-options --allow-all scripts/search_profile.ts \
 *     --path /work/sympy --work /tmp/search-sympy [--rounds 1] [--runs 100] [--json]
 */
import { parseArgs } from "node:util";
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { runAction } from "../src/actions/dispatch.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { copyTree, scanDefinitions, spread, type Target } from "./_bench_corpus.ts";
import { coldIndex } from "./_bench_cold.ts";
import { latencyStats, type QuerySample, threadCpuMs } from "./_bench_stats.ts";
import { paramsFor } from "./_bench_actions.ts";

/** As the bench: files read for definitions, warm-up calls. */
const SCAN_FILES = 4000;
const WARMUP_DEFINITIONS = 3;

const args = parseArgs({
  args: Deno.args,
  options: {
    path: { type: "string" },
    work: { type: "string" },
    rounds: { type: "string" },
    runs: { type: "string" },
    action: { type: "string" },
    json: { type: "boolean" },
    dump: { type: "string" },
    queries: { type: "string" },
  },
});
const source = args.values.path;
const work = args.values.work;
if (!source || !work) {
  console.error("usage: search_profile.ts --path <repository> --work <directory> [--rounds N]");
  Deno.exit(2);
}
const rounds = Number(args.values.rounds ?? 1);
const runs = Number(args.values.runs ?? 100);
const action = args.values.action ?? "search";

const name = Deno.realPathSync(source).split("/").pop()!;
const root = join(work, name);
const target: Target = {
  label: name,
  kind: "path",
  workDirectory: work,
  workspaceDirectory: root,
  cacheDirectory: join(work, "cache"),
  repositories: [{ name, source, root }],
  prepare_s: 0,
  cleanup: () => {},
};
if (!existsSync(join(work, "indexed"))) {
  Deno.mkdirSync(target.cacheDirectory, { recursive: true });
  if (!existsSync(root)) await copyTree(source, root);
  target.repositories[0].root = Deno.realPathSync(root);
  const cold = await coldIndex(target);
  console.error(`indexed ${cold.files} files in ${cold.s} s`);
  Deno.writeTextFileSync(join(work, "indexed"), "");
}
target.repositories[0].root = Deno.realPathSync(root);

const found = scanDefinitions(target, { maxFiles: SCAN_FILES });
const timed = spread(found, runs);
const timedNames = new Set(timed.map((d) => d.name));
const warmup = spread(found.filter((d) => !timedNames.has(d.name)), WARMUP_DEFINITIONS);

const workspace = await Workspace.open({
  directory: target.workspaceDirectory,
  cacheDirectory: target.cacheDirectory,
});
// A kept target of an older schema or pipeline is rebuilt here, not answered from: searches on it
// would fall back to scanning the working tree, one by one (minutes, and fallback answers).
const report = await workspace.refresh(workspace.repositories[0]);
if (report.parsed > 0) console.error(`refreshed: ${report.parsed} files parsed`);
try {
  if (args.values.dump) {
    const queries = timed.map((d) => d.name);
    if (args.values.queries) {
      for (const line of Deno.readTextFileSync(args.values.queries).split("\n")) {
        if (line.trim()) queries.push(JSON.parse(line).query);
      }
    }
    const lines: string[] = [];
    for (const strategy of ["hybrid", "lexical", "vector"]) {
      for (const query of queries) {
        const answer = await runAction(workspace, "search", { query, strategy, limit: 10 });
        const { results, trace_id: _, ...rest } = answer;
        lines.push(JSON.stringify({ strategy, query, ...rest, results }));
        // The second page: paging stays the same.
        if (answer.next_cursor) {
          const next = await runAction(workspace, "search", {
            query,
            strategy,
            limit: 10,
            cursor: answer.next_cursor,
          });
          lines.push(JSON.stringify({ strategy, query, page: 2, results: next.results }));
        }
      }
    }
    // Filters: kinds and paths (files dropped before scoring), on the first queries.
    const filters: Record<string, unknown>[] = [
      { kind: "local" },
      { kind: "doc" },
      { kind: "all" },
      { paths: ["sympy/core/**", "sympy/polys/**"] },
      { paths: ["doc/**"], strategy: "lexical" },
    ];
    for (const filter of filters) {
      for (const query of queries.slice(0, 40)) {
        const answer = await runAction(workspace, "search", { query, limit: 10, ...filter });
        const { results, trace_id: _, ...rest } = answer;
        lines.push(JSON.stringify({ filter, query, ...rest, results }));
      }
    }
    Deno.writeTextFileSync(args.values.dump, lines.join("\n") + "\n");
    console.log(`${lines.length} answers written to ${args.values.dump}`);
    Deno.exit(0);
  }
  for (const definition of warmup) {
    await runAction(workspace, action, paramsFor(action, definition));
  }
  const all: QuerySample[][] = [];
  /** Process CPU (user + system, every thread) per query, per round. */
  const cpuMs: number[] = [];
  /** This thread's CPU per query, per round (the search, without V8's helper threads). */
  const threadMs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const cpuBefore = process.cpuUsage();
    const threadBefore = threadCpuMs();
    const samples: QuerySample[] = [];
    for (const definition of timed) {
      const before = performance.now();
      const answer = await runAction(workspace, action, paramsFor(action, definition));
      samples.push({
        query: definition.name,
        ms: performance.now() - before,
        hits: answer.results.length,
      });
    }
    all.push(samples);
    const cpu = process.cpuUsage(cpuBefore);
    cpuMs.push((cpu.user + cpu.system) / 1000 / timed.length);
    threadMs.push((threadCpuMs() - threadBefore) / timed.length);
  }
  const first = latencyStats(all[0]);
  const later = all.length > 1 ? latencyStats(all.slice(1).flat()) : null;
  if (args.values.json) {
    console.log(JSON.stringify({
      first,
      later,
      cpu_ms_per_query: cpuMs,
      thread_cpu_ms_per_query: threadMs,
      samples: all[0],
    }));
  } else {
    console.log(`${action} first round (distinct): ${JSON.stringify(first)}`);
    if (later) console.log(`${action} later rounds: ${JSON.stringify(later)}`);
    console.log(
      `process CPU per query, by round: ${cpuMs.map((ms) => ms.toFixed(2)).join(", ")} ms`,
    );
    console.log(
      `main thread CPU per query, by round: ${threadMs.map((ms) => ms.toFixed(2)).join(", ")} ms`,
    );
    const slowest = [...all[0]].sort((a, b) => b.ms - a.ms).slice(0, 8);
    console.log(
      `slowest: ${slowest.map((s) => `${s.query} ${s.ms.toFixed(1)}`).join(", ")}`,
    );
  }
} finally {
  workspace.close();
}
