/**
 * `deno task bench`: the figures of issue 12 on one or more trees, with
 * ctags, rg and ast-grep run on the same trees in the same run.
 *
 *   deno task bench [--path DIR]... [--together] [--synthetic LINES]... [options]
 *   deno task bench --scale [SIZES] [--path DIR]... [options]
 *   deno task bench --compare A.json B.json [--threshold PCT]
 *
 * Each tree is a target: a private copy of the repositories (or a generated
 * corpus), indexed cold in a child process, then measured (`_bench_sextant.ts`
 * lists what). The parts: `_bench_corpus.ts` (trees, definitions, edits),
 * `_bench_cold.ts` (the cold index child), `_bench_actions.ts` (actions timed
 * alone), `_bench_peers.ts` (ctags, rg, ast-grep), `_bench_load.ts` (a real
 * daemon under socket clients), `_bench_figures.ts` (the flat figures),
 * `_bench_scale.ts` (growth), `_bench_compare.ts`, `_bench_stats.ts` and
 * `_bench_report.ts` (tables and JSON).
 */
import { parseArgs } from "node:util";
import { printComparison } from "./_bench_compare.ts";
import type { TargetSpec } from "./_bench_corpus.ts";
import { type BenchDocument, log, printTargets, writeJson } from "./_bench_report.ts";
import { DEFAULT_SCALE, growthOf, printGrowth } from "./_bench_scale.ts";
import { type BenchOptions, benchTarget, type TargetResult } from "./_bench_sextant.ts";
import { loadAverage } from "./_bench_stats.ts";
import { SERVING_V8_FLAGS } from "./_serving_flags.ts";

const USAGE = `usage: deno task bench [--path DIR]... [--together] [--synthetic LINES]... [options]
       deno task bench --scale [SIZES] [--path DIR]... [options]
       deno task bench --compare A.json B.json [--threshold PCT]
trees:
  --path DIR          a repository to measure (repeatable; copied, never written)
  --together          all --path repositories in one workspace (one target)
  --synthetic LINES   a generated corpus of about LINES lines (repeatable)
  --scale [SIZES]     growth: synthetic corpora of these line counts (default
                      ${DEFAULT_SCALE.join(",")}), plus one workspace of every --path
  --seed N            seed of synthetic corpora (default 1)
measuring:
  --runs N            timed calls per action on distinct definitions (default 100)
  --action-seconds S  stop an action after S seconds once 3 calls are timed (default 30)
  --grep-patterns N   call patterns given to grep and ast-grep (default 8)
  --clients N         socket clients against a real daemon (default 16; 0 skips the daemon)
  --duration S        seconds of each load phase (default 10)
  --mix A,B,...       actions the clients issue in turn (default search,symbols,definition)
  --query-workers N   the daemon's query Workers (default: the daemon's)
  --daemon-v8-flags F the daemon's V8 flags, comma-separated (default: those of
                      \`deno task daemon\`, ${SERVING_V8_FLAGS.join(",")}; empty: none)
  --lsp               also the LSP router's overhead over a direct request to the
                      installed server of the tree's main language (pyright,
                      typescript-language-server)
output:
  --json FILE         also write every figure as JSON (for --compare)
  --keep              keep the work directories (their paths are printed)
  --compare A B       print the figures that moved between two JSON files
  --threshold PCT     --compare lists changes of at least PCT percent (default 10)
Without --path, --synthetic or --scale: --synthetic 50000.`;

type Command =
  | { mode: "targets" | "scale"; specs: TargetSpec[]; options: BenchOptions; json: string | null }
  | { mode: "compare"; files: [string, string]; threshold: number };

function parseBenchArgs(argv: string[]): Command {
  const { values, positionals } = parseArgs({
    args: withScaleDefault(argv),
    allowPositionals: true,
    options: {
      path: { type: "string", multiple: true },
      together: { type: "boolean" },
      synthetic: { type: "string", multiple: true },
      scale: { type: "string" },
      seed: { type: "string" },
      runs: { type: "string" },
      "action-seconds": { type: "string" },
      "grep-patterns": { type: "string" },
      clients: { type: "string" },
      duration: { type: "string" },
      mix: { type: "string" },
      "query-workers": { type: "string" },
      "daemon-v8-flags": { type: "string" },
      lsp: { type: "boolean" },
      json: { type: "string" },
      keep: { type: "boolean" },
      compare: { type: "boolean" },
      threshold: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    Deno.exit(0);
  }
  if (values.compare) {
    if (positionals.length !== 2) throw new TypeError("--compare needs two JSON files");
    const threshold = values.threshold ? Number(values.threshold) : 10;
    if (!(threshold >= 0)) throw new TypeError("--threshold needs a percentage");
    return { mode: "compare", files: [positionals[0], positionals[1]], threshold: threshold / 100 };
  }
  if (positionals.length > 0) throw new TypeError(`unexpected argument '${positionals[0]}'`);
  const paths = values.path ?? [];
  const scale = values.scale === undefined ? null : sizes(values.scale);
  const specs: TargetSpec[] = [];
  if (scale) {
    specs.push(...scale.map((lines): TargetSpec => ({ kind: "synthetic", lines })));
    if (paths.length > 0) specs.push({ kind: "path", directories: paths });
  } else {
    if (values.together && paths.length > 0) specs.push({ kind: "path", directories: paths });
    else {specs.push(
        ...paths.map((directory): TargetSpec => ({ kind: "path", directories: [directory] })),
      );}
    for (const lines of values.synthetic ?? []) {
      specs.push({ kind: "synthetic", lines: positiveInt("--synthetic", lines) });
    }
    if (specs.length === 0) specs.push({ kind: "synthetic", lines: 50_000 });
  }
  const queryWorkers = values["query-workers"];
  return {
    mode: scale ? "scale" : "targets",
    specs,
    json: values.json ?? null,
    options: {
      seed: values.seed ? positiveInt("--seed", values.seed) : 1,
      keep: values.keep ?? false,
      lsp: values.lsp ?? false,
      runs: values.runs ? positiveInt("--runs", values.runs) : 100,
      actionSeconds: values["action-seconds"]
        ? positiveInt("--action-seconds", values["action-seconds"])
        : 30,
      grepPatterns: values["grep-patterns"]
        ? positiveInt("--grep-patterns", values["grep-patterns"])
        : 8,
      load: {
        clients: values.clients ? wholeNumber("--clients", values.clients) : 16,
        duration: values.duration ? positiveInt("--duration", values.duration) : 10,
        mix: (values.mix ?? "search,symbols,definition").split(",").filter(Boolean),
        queryWorkers: queryWorkers === undefined
          ? null
          : wholeNumber("--query-workers", queryWorkers),
        v8Flags: values["daemon-v8-flags"] === undefined
          ? SERVING_V8_FLAGS
          : values["daemon-v8-flags"].split(",").filter(Boolean),
      },
    },
  };
}

/** A bare `--scale` (last, or followed by another flag) means the default sizes. */
function withScaleDefault(argv: string[]): string[] {
  return argv.map((arg, i) =>
    arg === "--scale" && (i === argv.length - 1 || argv[i + 1].startsWith("-"))
      ? `--scale=${DEFAULT_SCALE.join(",")}`
      : arg
  );
}

function sizes(text: string): number[] {
  const list = text.split(",").filter(Boolean).map((size) => positiveInt("--scale", size));
  if (list.length === 0) throw new TypeError("--scale needs line counts, e.g. 50000,500000");
  return list;
}

function positiveInt(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new TypeError(`${flag} needs a positive integer`);
  return n;
}

function wholeNumber(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new TypeError(`${flag} needs a whole number`);
  return n;
}

async function main(argv: string[]): Promise<void> {
  let command: Command;
  try {
    command = parseBenchArgs(argv);
  } catch (error) {
    console.error(`bench: ${(error as Error).message}\n${USAGE}`);
    Deno.exit(2);
  }
  if (command.mode === "compare") {
    printComparison(command.files, command.threshold);
    return;
  }
  const startedAt = new Date().toISOString();
  const loadStart = loadAverage();
  const cpus = navigator.hardwareConcurrency;
  if (loadStart !== null && loadStart > cpus / 2) {
    log(`note: 1-minute load average ${loadStart} on ${cpus} CPUs: other work shares the machine`);
  }
  const results: TargetResult[] = [];
  for (const spec of command.specs) results.push(await benchTarget(spec, command.options));
  printTargets(results);
  const growth = command.mode === "scale" ? growthOf(results) : undefined;
  if (growth) printGrowth(growth);
  if (command.json) {
    const document: BenchDocument = {
      tool: "sextant-bench",
      format: 2,
      mode: command.mode,
      started_at: startedAt,
      finished_at: new Date().toISOString(),
      argv,
      machine: {
        deno: Deno.version.deno,
        os: Deno.build.os,
        arch: Deno.build.arch,
        cpus,
        load_average_start: loadStart,
        load_average_end: loadAverage(),
      },
      targets: results,
      ...(growth ? { growth } : {}),
    };
    writeJson(command.json, document);
  }
}

if (import.meta.main) {
  try {
    await main(Deno.args);
  } catch (error) {
    console.error(`bench: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
