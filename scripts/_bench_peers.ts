/**
 * The peers `deno task bench` runs beside Sextant on the same tree, when they
 * are installed: universal-ctags (`ctags -R`, against the cold index) and
 * ripgrep (`rg -c -F IDENT`, against search). Every peer timing includes one
 * process spawn, measured on its own as the floor.
 */
import { log } from "./_bench_report.ts";
import { RG_QUERIES, type SextantResult } from "./_bench_sextant.ts";
import { median, ratio, round } from "./_bench_stats.ts";

const RG_RUNS = 5;

export interface PeerTiming {
  tool: string;
  version: string;
  median_ms: number;
  runs_ms: number[];
  detail: Record<string, unknown>;
}

export interface PeerResults {
  /** Wall time of spawning a no-op process; included in every peer timing. */
  spawn_overhead_ms: number | null;
  ctags: PeerTiming | null;
  rg: PeerTiming | null;
  ratios: { cold_vs_ctags: number | null; search_p50_vs_rg: number | null };
}

/** Every peer on the tree, with Sextant's figures beside them as ratios. */
export async function measurePeers(root: string, sextant: SextantResult): Promise<PeerResults> {
  log("  peers: ctags, rg…");
  const ctags = await measureCtags(root);
  const rg = await measureRg(root, sextant.queries.slice(0, RG_QUERIES));
  return {
    spawn_overhead_ms: await spawnOverhead(root),
    ctags,
    rg,
    ratios: {
      cold_vs_ctags: ratio(sextant.cold_s * 1000, ctags?.median_ms),
      search_p50_vs_rg: ratio(sextant.search.p50_ms, rg?.median_ms),
    },
  };
}

/** The first line of `tool --version`, or null when the tool is not installed. */
export async function toolVersion(tool: string): Promise<string | null> {
  try {
    const out = await new Deno.Command(tool, {
      args: ["--version"],
      stdout: "piped",
      stderr: "null",
    })
      .output();
    if (!out.success) return null;
    return new TextDecoder().decode(out.stdout).split("\n")[0].trim();
  } catch {
    return null; // not installed
  }
}

/** Wall time of one command run in `cwd`, output discarded. */
export async function timeCommand(
  options: { tool: string; args: string[]; cwd: string },
): Promise<number> {
  const started = performance.now();
  await new Deno.Command(options.tool, {
    args: options.args,
    cwd: options.cwd,
    stdout: "null",
    stderr: "null",
  }).output();
  return performance.now() - started;
}

async function measureCtags(root: string): Promise<PeerTiming | null> {
  const version = await toolVersion("ctags");
  if (!version) return null;
  if (!version.includes("Universal Ctags")) log(`  note: ctags is not universal-ctags: ${version}`);
  const tagsFile = Deno.makeTempFileSync({ prefix: "sextant-bench-", suffix: ".tags" });
  try {
    const ms = await timeCommand({ tool: "ctags", args: ["-R", "-f", tagsFile, "."], cwd: root });
    const text = Deno.readTextFileSync(tagsFile);
    const tags = text.split("\n").filter((line) => line !== "" && !line.startsWith("!_")).length;
    return {
      tool: "ctags",
      version,
      median_ms: round(ms),
      runs_ms: [round(ms)],
      detail: { command: `ctags -R -f ${tagsFile} .`, tags },
    };
  } finally {
    Deno.removeSync(tagsFile);
  }
}

async function measureRg(root: string, identifiers: string[]): Promise<PeerTiming | null> {
  const version = await toolVersion("rg");
  if (!version || identifiers.length === 0) return null;
  const runs: number[] = [];
  const perQuery: Record<string, number> = {};
  for (const ident of identifiers) {
    const own: number[] = [];
    for (let i = 0; i < RG_RUNS; i++) {
      own.push(await timeCommand({ tool: "rg", args: ["-c", "-F", "--", ident], cwd: root }));
    }
    perQuery[ident] = round(median(own), 3);
    runs.push(...own);
  }
  return {
    tool: "rg",
    version,
    median_ms: round(median(runs), 3),
    runs_ms: runs.map((ms) => round(ms, 3)),
    detail: { command: "rg -c -F IDENT", per_query_median_ms: perQuery },
  };
}

/** Median wall time of spawning `true`: the floor under every peer timing. */
async function spawnOverhead(root: string): Promise<number | null> {
  const runs: number[] = [];
  try {
    for (let i = 0; i < RG_RUNS; i++) {
      runs.push(await timeCommand({ tool: "true", args: [], cwd: root }));
    }
  } catch {
    return null;
  }
  return round(median(runs), 3);
}
