/**
 * The peers `deno task bench` runs beside Sextant on the same trees, in the
 * same run, when they are installed: universal-ctags (`ctags -R`, against the
 * cold index), ripgrep (`rg -c -F TERM`, against search, on the same terms)
 * and ast-grep (`ast-grep run --json=stream`, against structural grep, on the
 * same patterns). A missing peer is skipped with a note. Every peer timing
 * includes one process spawn, measured on its own as the floor.
 */
import type { GrepPattern } from "./_bench_actions.ts";
import { log } from "./_bench_report.ts";
import { median, percentile, round } from "./_bench_stats.ts";

export interface CtagsResult {
  version: string;
  s: number;
  tags: number;
}

export interface RgResult {
  version: string;
  /** One timing per term, in order. */
  runs_ms: number[];
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

export interface AstGrepRun {
  pattern: string;
  language: string;
  ms: number;
  matches: number;
  error?: string;
}

export interface AstGrepResult {
  version: string;
  runs: AstGrepRun[];
}

/** The first line of `tool --version`, or null when the tool is not installed. */
export async function toolVersion(tool: string): Promise<string | null> {
  try {
    const out = await new Deno.Command(tool, {
      args: ["--version"],
      stdout: "piped",
      stderr: "null",
    }).output();
    if (!out.success) return null;
    return new TextDecoder().decode(out.stdout).split("\n")[0].trim();
  } catch {
    return null; // not installed
  }
}

/** Wall time of one command run in `cwd`, and its stdout when asked for. */
async function run(
  options: { tool: string; args: string[]; cwd: string; keepOutput?: boolean },
): Promise<{ ms: number; stdout: string; code: number }> {
  const started = performance.now();
  const out = await new Deno.Command(options.tool, {
    args: options.args,
    cwd: options.cwd,
    stdout: options.keepOutput ? "piped" : "null",
    stderr: "null",
  }).output();
  const ms = performance.now() - started;
  const stdout = options.keepOutput ? new TextDecoder().decode(out.stdout) : "";
  return { ms, stdout, code: out.code };
}

/** `ctags -R` over every root, once; null (with a note) when ctags is absent. */
export async function measureCtags(roots: string[], notes: string[]): Promise<CtagsResult | null> {
  const version = await toolVersion("ctags");
  if (!version) {
    notes.push("ctags is not installed: cold index vs ctags -R skipped");
    return null;
  }
  if (!version.includes("Universal Ctags")) notes.push(`ctags is not universal-ctags: ${version}`);
  log("  peer: ctags -R…");
  const tagsFile = Deno.makeTempFileSync({ prefix: "sextant-bench-", suffix: ".tags" });
  try {
    const { ms } = await run({
      tool: "ctags",
      args: ["-R", "-f", tagsFile, ...roots],
      cwd: roots[0],
    });
    const text = Deno.readTextFileSync(tagsFile);
    const tags = text.split("\n").filter((line) => line !== "" && !line.startsWith("!_")).length;
    return { version, s: round(ms / 1000, 3), tags };
  } finally {
    Deno.removeSync(tagsFile);
  }
}

/** `rg -c -F -- TERM` over every root, once per term after one warm-up; null when rg is absent. */
export async function measureRg(
  roots: string[],
  terms: string[],
  notes: string[],
): Promise<RgResult | null> {
  const version = await toolVersion("rg");
  if (!version) {
    notes.push("rg is not installed: search vs rg -c skipped");
    return null;
  }
  if (terms.length === 0) return null;
  log(`  peer: rg -c on ${terms.length} terms…`);
  const rgArgs = (term: string) => ["-c", "-F", "--", term, ...roots];
  await run({ tool: "rg", args: rgArgs(terms[0]), cwd: roots[0] }); // warm the page cache
  const runs: number[] = [];
  for (const term of terms) {
    runs.push((await run({ tool: "rg", args: rgArgs(term), cwd: roots[0] })).ms);
  }
  return {
    version,
    runs_ms: runs.map((ms) => round(ms, 3)),
    p50_ms: round(percentile(runs, 50), 3),
    p95_ms: round(percentile(runs, 95), 3),
    p99_ms: round(percentile(runs, 99), 3),
  };
}

/** `ast-grep run --json=stream` per pattern over every root; null when ast-grep is absent. */
export async function measureAstGrep(
  roots: string[],
  patterns: GrepPattern[],
  notes: string[],
): Promise<AstGrepResult | null> {
  const version = await toolVersion("ast-grep");
  if (!version) {
    notes.push("ast-grep is not installed: grep vs ast-grep skipped");
    return null;
  }
  log(`  peer: ast-grep on ${patterns.length} patterns…`);
  const runs: AstGrepRun[] = [];
  for (const pattern of patterns) {
    const out = await run({
      tool: "ast-grep",
      args: [
        "run",
        "--pattern",
        pattern.pattern,
        "--lang",
        pattern.language,
        "--json=stream",
        ...roots,
      ],
      cwd: roots[0],
      keepOutput: true,
    });
    const matches = out.stdout.split("\n").filter((line) => line.trim() !== "").length;
    runs.push({
      pattern: pattern.pattern,
      language: pattern.language,
      ms: round(out.ms, 3),
      matches,
      // Exit 1 means no match; 2 is an error (a pattern or language it cannot take).
      ...(out.code > 1 ? { error: `ast-grep exited with ${out.code}` } : {}),
    });
  }
  return { version, runs };
}

/** Median wall time of spawning `true`: the floor under every peer timing. */
export async function spawnOverhead(cwd: string): Promise<number | null> {
  const runs: number[] = [];
  try {
    for (let i = 0; i < 5; i++) runs.push((await run({ tool: "true", args: [], cwd })).ms);
  } catch {
    return null;
  }
  return round(median(runs), 3);
}
