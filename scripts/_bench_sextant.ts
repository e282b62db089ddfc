/**
 * One target measured end to end, with its peers in the same run: the cold
 * index in a child process, the target's bytes on disk, `ctags -R`, then in
 * this process the no-op and one-file refresh and every query action timed
 * alone, `rg` and `ast-grep` on the same terms and patterns, and last a real
 * daemon under socket clients. The one-file change appends a function to a
 * source file and restores its bytes and mtime after.
 */
import { join } from "node:path";
import { Workspace } from "../src/workspace/workspace.ts";
import {
  type ActionTiming,
  type GrepPattern,
  grepPatterns,
  NEXT_PAGE,
  type SextantGrepRun,
  timeAction,
  timedActions,
  timeGrep,
  timeNextPage,
} from "./_bench_actions.ts";
import { coldIndex, type ColdIndexResult } from "./_bench_cold.ts";
import {
  appendedFunction,
  type BenchRepository,
  type Definition,
  editableFiles,
  prepareTarget,
  scanDefinitions,
  spread,
  type Target,
  type TargetSpec,
} from "./_bench_corpus.ts";
import { type Figures, figuresOf } from "./_bench_figures.ts";
import { benchLspOverhead, type LspOverheadResult } from "./_bench_lsp.ts";
import { benchDaemon, type DaemonResult, type LoadOptions } from "./_bench_load.ts";
import {
  type AstGrepResult,
  type CtagsResult,
  measureAstGrep,
  measureCtags,
  measureRg,
  type RgResult,
  spawnOverhead,
} from "./_bench_peers.ts";
import { log } from "./_bench_report.ts";
import {
  type LatencyStats,
  MB,
  median,
  ratio,
  round,
  timingStats,
  treeSize,
} from "./_bench_stats.ts";

/** Timed refreshes (with 5 and 3, their medians moved by ±10 ms between runs of one build). */
export const NOOP_RUNS = 15;
export const ONE_FILE_RUNS = 7;
/** Definitions asked about before timing each action (warm reader, statement caches). */
const WARMUP_DEFINITIONS = 3;
/** Definitions the load clients ask about in turn. */
const LOAD_DEFINITIONS = 2000;
/** Files read to find definitions, spread over the tree. */
const SCAN_FILES = 4000;

export interface BenchOptions {
  seed: number;
  keep: boolean;
  /** Timed calls per action, each on a distinct definition while there are enough. */
  runs: number;
  /** An action stops after this many seconds once three calls are timed. */
  actionSeconds: number;
  /** Call patterns of definitions given to grep and ast-grep. */
  grepPatterns: number;
  /** The daemon phase; skipped when `clients` is 0. */
  load: LoadOptions;
  /** Measure the LSP router's overhead over a direct server request (`--lsp`). */
  lsp?: boolean;
}

export interface OneFileRun {
  path: string;
  ms: number;
  parsed: number;
}

export interface GrepPatternResult extends GrepPattern {
  sextant: SextantGrepRun & { warm_p50_ms: number | null };
  ast_grep: { ms: number; matches: number; error?: string } | null;
  first_vs_ast_grep: number | null;
  warm_vs_ast_grep: number | null;
}

export interface TargetResult {
  label: string;
  kind: Target["kind"];
  repositories: Omit<BenchRepository, "root">[];
  synthetic?: Target["synthetic"];
  prepare_s: number;
  corpus: { files: number; lines: number; bytes: number; mb: number };
  cold_index: ColdIndexResult & {
    s_per_100k_lines: number;
    lines_per_s: number;
    files_per_s: number;
    mb_per_s: number;
  };
  target: {
    bytes: number;
    db_bytes: number;
    wal_bytes: number;
    other_bytes: number;
    mb: number;
    bytes_per_corpus_byte: number;
  };
  refresh: {
    noop_ms: number;
    noop_runs_ms: number[];
    /** The untimed first no-op refresh of the process (its first open of the target, cold code). */
    noop_first_ms: number;
    one_file_ms: number;
    one_file_runs: OneFileRun[];
    /** The untimed first one-file change: it also starts this process's parse Workers. */
    one_file_first: OneFileRun | null;
  };
  definitions: { found: number; timed: number; distinct: boolean; sample: string[] };
  actions: Record<string, ActionTiming>;
  grep: { patterns: GrepPatternResult[]; first: LatencyStats; warm: LatencyStats };
  peers: {
    spawn_overhead_ms: number | null;
    ctags: CtagsResult | null;
    rg: RgResult | null;
    ast_grep: { version: string } | null;
  };
  daemon: DaemonResult | null;
  /** The LSP router's overhead over a direct request (`--lsp`), or null. */
  lsp?: LspOverheadResult | null;
  figures: Figures;
  notes: string[];
}

/** Prepares the tree, measures everything on it, and removes the bench's copies after. */
export async function benchTarget(spec: TargetSpec, options: BenchOptions): Promise<TargetResult> {
  const target = await prepareTarget(spec, options);
  try {
    return await measureTarget(target, options);
  } finally {
    target.cleanup();
  }
}

async function measureTarget(target: Target, options: BenchOptions): Promise<TargetResult> {
  const notes: string[] = [];
  const roots = target.repositories.map((repo) => repo.root);
  log(`${target.label}: cold index in a child process…`);
  const cold = await coldIndex(target);
  log(`  cold index: ${cold.s.toFixed(2)}s, peak RSS ${cold.peak_rss_mb} MB`);
  if (cold.files === 0) throw new Error(`${target.label}: nothing was indexed`);
  const target_ = targetBytes(target.cacheDirectory, cold.bytes);
  const ctags = await measureCtags(roots, notes);

  const found = scanDefinitions(target, { maxFiles: SCAN_FILES });
  const timed = spread(found, options.runs);
  const timedNames = new Set(timed.map((d) => d.name));
  const warmup = spread(found.filter((d) => !timedNames.has(d.name)), WARMUP_DEFINITIONS);
  if (timed.length < options.runs) {
    notes.push(
      `only ${timed.length} definitions found for ${options.runs} runs: queries repeat`,
    );
  }
  const patterns = grepPatterns(target, found, options.grepPatterns);

  const inProcess = await measureInProcess(target, { timed, warmup, patterns, options });
  const rg = await measureRg(roots, timed.map((d) => d.name), notes);
  const astGrep = await measureAstGrep(roots, patterns, notes);
  const spawn = await spawnOverhead(roots[0]);

  let daemon: DaemonResult | null = null;
  if (options.load.clients > 0 && timed.length > 0) {
    daemon = await benchDaemon(target, {
      ...options.load,
      serial: timed,
      // Many definitions, so the daemon's answer cache rarely answers (its hits are reported).
      definitions: spread(found, LOAD_DEFINITIONS),
      files: cold.files,
    });
  } else {
    notes.push("daemon phase skipped (--clients 0)");
  }
  const lsp = options.lsp ? await benchLspOverhead(target, notes, log) : null;

  const seconds = cold.s;
  const result: TargetResult = {
    label: target.label,
    kind: target.kind,
    repositories: target.repositories.map(({ name, source }) => ({ name, source })),
    ...(target.synthetic ? { synthetic: target.synthetic } : {}),
    prepare_s: target.prepare_s,
    corpus: { files: cold.files, lines: cold.lines, bytes: cold.bytes, mb: round(cold.bytes / MB) },
    cold_index: {
      ...cold,
      s_per_100k_lines: round(seconds / (cold.lines / 100_000), 3),
      lines_per_s: round(cold.lines / seconds, 0),
      files_per_s: round(cold.files / seconds, 0),
      mb_per_s: round(cold.bytes / MB / seconds),
    },
    target: target_,
    refresh: inProcess.refresh,
    definitions: {
      found: found.length,
      timed: timed.length,
      distinct: timed.length >= options.runs,
      sample: timed.slice(0, 10).map((d) => d.name),
    },
    actions: inProcess.actions,
    grep: combineGrep(patterns, inProcess.grep, astGrep),
    peers: {
      spawn_overhead_ms: spawn,
      ctags,
      rg,
      ast_grep: astGrep ? { version: astGrep.version } : null,
    },
    daemon,
    lsp,
    figures: {},
    notes: [...notes, ...actionNotes(inProcess.actions)],
  };
  result.figures = figuresOf(result);
  return result;
}

/** The target's files in the cache: database, write-ahead log and the rest. */
function targetBytes(cacheDirectory: string, corpusBytes: number): TargetResult["target"] {
  let db = 0;
  let wal = 0;
  let other = 0;
  const walk = (path: string) => {
    for (const entry of Deno.readDirSync(path)) {
      const full = join(path, entry.name);
      if (entry.isDirectory) walk(full);
      else if (!entry.isFile) continue;
      else if (entry.name.endsWith(".sqlite3")) db += Deno.statSync(full).size;
      else if (entry.name.endsWith("-wal")) wal += Deno.statSync(full).size;
      else other += Deno.statSync(full).size;
    }
  };
  walk(cacheDirectory);
  const bytes = treeSize(cacheDirectory);
  return {
    bytes,
    db_bytes: db,
    wal_bytes: wal,
    other_bytes: other,
    mb: round(bytes / MB),
    bytes_per_corpus_byte: round(bytes / Math.max(1, corpusBytes), 3),
  };
}

/** Everything measured in this process on the indexed target; the workspace is closed after. */
async function measureInProcess(
  target: Target,
  plan: {
    timed: Definition[];
    warmup: Definition[];
    patterns: GrepPattern[];
    options: BenchOptions;
  },
) {
  const { options } = plan;
  const workspace = await Workspace.open({
    directory: target.workspaceDirectory,
    cacheDirectory: target.cacheDirectory,
  });
  try {
    // The refreshes are timed as a serving process runs them: with each target open for reading
    // (the daemon's query Workers, a workspace that has answered). A writer that closes the last
    // connection checkpoints the WAL into the database as it closes (+15 ms on a one-file change
    // of sympy), which a serving process never pays and a one-shot CLI pays once, at its exit.
    for (const repo of workspace.repositories) workspace.reader(repo);
    log(
      `  no-op refresh ×${NOOP_RUNS}, one-file change ×${ONE_FILE_RUNS}, each after one untimed…`,
    );
    const [noopFirst, ...noop] = await measureNoop(workspace);
    const [first, ...oneFile] = await measureOneFile(workspace, target);
    const actions: Record<string, ActionTiming> = {};
    for (const action of timedActions()) {
      log(`  ${action}…`);
      actions[action] = await timeAction({
        workspace,
        action,
        definitions: plan.timed,
        warmup: plan.warmup,
        runs: options.runs,
        budgetMs: options.actionSeconds * 1000,
      });
    }
    log(`  impact, next page…`);
    actions[NEXT_PAGE] = await timeNextPage({
      workspace,
      definitions: plan.timed,
      runs: options.runs,
      budgetMs: options.actionSeconds * 1000,
    });
    log(`  grep: ${plan.patterns.length} patterns, first query cold then warm…`);
    const grep: SextantGrepRun[] = [];
    for (const pattern of plan.patterns) grep.push(await timeGrep(workspace, pattern));
    return {
      refresh: {
        noop_ms: round(median(noop)),
        noop_runs_ms: noop.map((ms) => round(ms)),
        noop_first_ms: round(noopFirst),
        one_file_ms: round(median(oneFile.map((r) => r.ms))),
        one_file_runs: oneFile,
        one_file_first: first ?? null,
      },
      actions,
      grep,
    };
  } finally {
    workspace.close();
  }
}

/** Every repository of the workspace reconciled once, timed. */
async function refreshAll(workspace: Workspace): Promise<{ ms: number; parsed: number }> {
  const started = performance.now();
  let parsed = 0;
  for (const repo of workspace.repositories) parsed += (await workspace.refresh(repo)).parsed;
  return { ms: performance.now() - started, parsed };
}

/**
 * One more no-op refresh than NOOP_RUNS: the first is the process's first (it opens the target's
 * writer and runs the refresh's code cold, as a daemon does once) and is not counted.
 */
async function measureNoop(workspace: Workspace): Promise<number[]> {
  const runs: number[] = [];
  for (let i = 0; i <= NOOP_RUNS; i++) {
    const { ms, parsed } = await refreshAll(workspace);
    if (parsed !== 0) log(`warning: no-op refresh ${i + 1} parsed ${parsed} files`);
    runs.push(ms);
  }
  return runs;
}

/** One more change than ONE_FILE_RUNS: the first starts the parse Workers and is not counted. */
async function measureOneFile(workspace: Workspace, target: Target): Promise<OneFileRun[]> {
  const runs: OneFileRun[] = [];
  for (const [n, file] of editableFiles(target, ONE_FILE_RUNS + 1).entries()) {
    const full = join(file.root, file.path);
    const original = Deno.readFileSync(full);
    const stat = Deno.statSync(full);
    try {
      Deno.writeTextFileSync(full, appendedFunction(file.path, n), { append: true });
      const { ms, parsed } = await refreshAll(workspace);
      runs.push({ path: file.path, ms: round(ms), parsed });
    } finally {
      Deno.writeFileSync(full, original);
      if (stat.atime && stat.mtime) Deno.utimeSync(full, stat.atime, stat.mtime);
    }
    await refreshAll(workspace); // back to the committed tree, untimed
  }
  return runs;
}

function combineGrep(
  patterns: GrepPattern[],
  sextant: SextantGrepRun[],
  astGrep: AstGrepResult | null,
): TargetResult["grep"] {
  const results = patterns.map((pattern, i): GrepPatternResult => {
    const own = sextant[i];
    const peer = astGrep?.runs[i] ?? null;
    const warm = own.warm_ms.length ? round(median(own.warm_ms), 3) : null;
    const usable = peer && !peer.error && !own.error;
    return {
      ...pattern,
      sextant: { ...own, warm_p50_ms: warm },
      ast_grep: peer
        ? { ms: peer.ms, matches: peer.matches, ...(peer.error ? { error: peer.error } : {}) }
        : null,
      first_vs_ast_grep: usable ? ratio(own.first_ms, peer.ms) : null,
      warm_vs_ast_grep: usable ? ratio(warm, peer.ms) : null,
    };
  });
  const ok = results.filter((r) => !r.sextant.error);
  return {
    patterns: results,
    first: timingStats(ok.map((r) => r.sextant.first_ms)),
    warm: timingStats(ok.flatMap((r) => r.sextant.warm_ms)),
  };
}

function actionNotes(actions: Record<string, ActionTiming>): string[] {
  return Object.entries(actions)
    .filter(([, timing]) => timing.note)
    .map(([action, timing]) => `${action}: ${timing.status}: ${timing.note}`);
}
