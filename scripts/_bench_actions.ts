/**
 * Every query action timed alone, in this process, on an indexed workspace:
 * the params each action gets for one definition (written from the method
 * descriptors, so a new action is timed without an edit here), warm timings
 * over distinct definitions, and structural grep's first query on a cold file
 * set beside its warm repeats.
 */
import { runAction } from "../src/actions/dispatch.ts";
import { forgetRegions } from "../src/grep/regions.ts";
import { METHODS } from "../src/protocol/methods.ts";
import type { Workspace } from "../src/workspace/workspace.ts";
import { type Definition, spread, type Target } from "./_bench_corpus.ts";
import { PARITY_PATTERNS, PARITY_REPOSITORIES } from "./_grep_patterns.ts";
import { type LatencyStats, latencyStats, type QuerySample, round } from "./_bench_stats.ts";

/** The navigation actions of the table. */
export const NAVIGATION_ACTIONS = [
  "definition",
  "references",
  "callers",
  "callees",
  "impact",
  "neighborhood",
];
/** Agent actions planned by issue 13: timed when METHODS has them, else reported absent. */
export const AGENT_ACTIONS = ["map", "outline", "context", "verify"];
/** Measured elsewhere: refresh and rebuild as no-op/one-file refresh, grep with its own peer. */
const NOT_TIMED_HERE = new Set(["refresh", "rebuild", "grep"]);
/** Depth of impact in the goal (impact depth 3 p99). */
export const IMPACT_DEPTH = 3;

/** How one action fared: measured, absent from METHODS, or failing on every call. */
export type ActionTiming =
  & { status: "measured" | "absent" | "failed"; note?: string }
  & Partial<LatencyStats>
  & { errors?: number; distinct?: boolean };

/** The actions timed alone, in order: search, symbols, navigation, then any other action. */
export function timedActions(): string[] {
  const first = ["search", "symbols", ...NAVIGATION_ACTIONS, ...AGENT_ACTIONS];
  const rest = Object.keys(METHODS).filter((name) =>
    !first.includes(name) && !NOT_TIMED_HERE.has(name)
  );
  return [...first, ...rest];
}

/**
 * The params an action gets for one definition, from its descriptor's
 * positional argument: a query, a symbol, a pattern or a citation of the
 * definition. Null when the action does not exist.
 */
export function paramsFor(action: string, definition: Definition): Record<string, unknown> | null {
  const descriptor = METHODS[action];
  if (!descriptor) return null;
  const params: Record<string, unknown> = {};
  switch (descriptor.argument) {
    case "query":
      params.query = definition.name;
      break;
    case "symbol":
      params.symbol = definition.name;
      break;
    case "pattern":
      params.pattern = `${definition.name}($$$ARGS)`;
      params.language = definition.language;
      break;
    case "citations":
      params.citations = [{
        repo: definition.repo,
        path: definition.path,
        start_line: definition.line,
        end_line: definition.line,
        symbol: definition.name,
      }];
      break;
  }
  if (action === "impact" && descriptor.params.depth) params.depth = IMPACT_DEPTH;
  if ((action === "search" || action === "symbols") && descriptor.params.limit) params.limit = 10;
  return params;
}

/** Timed calls of one action, failures counted (never thrown), summed up as an `ActionTiming`. */
class Samples {
  readonly list: QuerySample[] = [];
  errors = 0;
  #firstError: string | undefined;

  /** Times `call` for a definition; a failure is counted. */
  async time(definition: Definition, call: () => Promise<{ results: unknown[] }>): Promise<void> {
    const before = performance.now();
    try {
      const envelope = await call();
      this.list.push({
        query: definition.name,
        ms: performance.now() - before,
        hits: envelope.results.length,
      });
    } catch (error) {
      this.failed(definition, error);
    }
  }

  failed(definition: Definition, error: unknown): void {
    this.errors++;
    this.#firstError ??= `${definition.name}: ${(error as Error).message}`;
  }

  /** Whether enough calls are timed and the budget is spent. */
  done(started: number, budgetMs: number): boolean {
    return this.list.length >= 3 && performance.now() - started > budgetMs;
  }

  /** The timing; with no call timed, `none` (when nothing failed either) or "failed". */
  timing(distinct: boolean, none?: ActionTiming): ActionTiming {
    const firstError = this.#firstError;
    if (this.list.length === 0) {
      return none && !firstError
        ? none
        : { status: "failed", note: firstError, errors: this.errors };
    }
    return {
      status: "measured",
      ...latencyStats(this.list),
      errors: this.errors,
      distinct,
      ...(firstError ? { note: `first error: ${firstError}` } : {}),
    };
  }
}

/**
 * Times one action: a few warm-up calls on other definitions, then one call
 * per definition (distinct while there are enough of them), stopping early
 * after `budgetMs` once three calls are timed. Failures are counted, never
 * thrown.
 */
export async function timeAction(options: {
  workspace: Workspace;
  action: string;
  definitions: Definition[];
  warmup: Definition[];
  runs: number;
  budgetMs: number;
}): Promise<ActionTiming> {
  const { workspace, action, definitions, runs } = options;
  if (!METHODS[action]) {
    return { status: "absent", note: `'${action}' is not in METHODS in this build` };
  }
  if (definitions.length === 0) return { status: "failed", note: "no definitions to ask about" };
  const call = (definition: Definition) =>
    runAction(workspace, action, paramsFor(action, definition));
  for (const definition of options.warmup) await call(definition).catch(() => {});
  const samples = new Samples();
  const started = performance.now();
  for (let i = 0; i < runs && !samples.done(started, options.budgetMs); i++) {
    const definition = definitions[i % definitions.length];
    await samples.time(definition, () => call(definition));
  }
  return samples.timing(samples.list.length + samples.errors <= definitions.length);
}

/** The key of `impact`'s next page among the timed actions (what an agent paging through asks). */
export const NEXT_PAGE = "impact_next_page";

/**
 * Times the second page of `impact` for each definition whose first page is cut (`next_cursor`):
 * the first page is asked untimed just before, as an agent paging through would have. Stops
 * early after `budgetMs` once three pages are timed.
 */
export async function timeNextPage(options: {
  workspace: Workspace;
  definitions: Definition[];
  runs: number;
  budgetMs: number;
}): Promise<ActionTiming> {
  const { workspace } = options;
  if (!METHODS.impact) {
    return { status: "absent", note: "'impact' is not in METHODS in this build" };
  }
  const samples = new Samples();
  const started = performance.now();
  for (const definition of options.definitions.slice(0, options.runs)) {
    if (samples.done(started, options.budgetMs)) break;
    const params = paramsFor("impact", definition)!;
    let cursor: string | null;
    try {
      cursor = (await runAction(workspace, "impact", params)).next_cursor;
    } catch (error) {
      samples.failed(definition, error);
      continue;
    }
    if (!cursor) continue;
    await samples.time(definition, () => runAction(workspace, "impact", { ...params, cursor }));
  }
  return samples.timing(true, {
    status: "absent",
    note: "no first page of impact was cut: no next page to ask",
  });
}

/** A structural pattern the bench greps, with Sextant and with ast-grep. */
export interface GrepPattern {
  pattern: string;
  language: string;
  /** From the grep parity suite, whose selective patterns the ≤ 0.1× ast-grep goal is about. */
  selective: boolean;
  source: "definition" | "parity";
}

/** Languages structural grep and ast-grep both take by these names. */
const GREP_LANGUAGES = new Set(["python", "typescript", "tsx", "javascript", "go", "rust", "java"]);

/**
 * Call patterns of `count` definitions (`name($$$ARGS)` in the language of
 * the definition's file), plus the grep parity suite's patterns when a
 * repository of the target is one of that suite's (e.g. sympy).
 */
export function grepPatterns(
  target: Target,
  definitions: Definition[],
  count: number,
): GrepPattern[] {
  const inGrep = definitions.filter((d) => GREP_LANGUAGES.has(d.language));
  const patterns: GrepPattern[] = spread(inGrep, count).map((d) => ({
    pattern: `${d.name}($$$ARGS)`,
    language: d.language,
    selective: false,
    source: "definition",
  }));
  const names = new Set(
    target.repositories.flatMap((repo) => [repo.name, repo.source.split("/").pop() ?? ""]),
  );
  for (const parity of PARITY_PATTERNS) {
    if (!PARITY_REPOSITORIES[parity.repo] || !names.has(parity.repo)) continue;
    patterns.push({
      pattern: parity.pattern,
      language: parity.language,
      selective: parity.selective ?? false,
      source: "parity",
    });
  }
  return patterns;
}

/** Sextant's timings of one pattern: every match, cursors followed. */
export interface SextantGrepRun {
  first_ms: number;
  warm_ms: number[];
  matches: number;
  error?: string;
}

export const GREP_WARM_RUNS = 3;

/**
 * The first query of a pattern on a cold file set (the statement ranges grep
 * remembers per file are forgotten first), then warm repeats of it.
 */
export async function timeGrep(
  workspace: Workspace,
  pattern: GrepPattern,
): Promise<SextantGrepRun> {
  forgetRegions();
  try {
    const first = await grepAll(workspace, pattern);
    const warm: number[] = [];
    for (let i = 0; i < GREP_WARM_RUNS; i++) warm.push((await grepAll(workspace, pattern)).ms);
    return {
      first_ms: round(first.ms, 3),
      warm_ms: warm.map((ms) => round(ms, 3)),
      matches: first.matches,
    };
  } catch (error) {
    return { first_ms: NaN, warm_ms: [], matches: 0, error: (error as Error).message };
  }
}

async function grepAll(
  workspace: Workspace,
  pattern: GrepPattern,
): Promise<{ ms: number; matches: number }> {
  const started = performance.now();
  let matches = 0;
  let cursor: string | undefined;
  do {
    const answer = await runAction(workspace, "grep", {
      pattern: pattern.pattern,
      language: pattern.language,
      limit: 1000,
      timeout_ms: 600_000,
      ...(cursor ? { cursor } : {}),
    });
    matches += answer.results.length;
    cursor = answer.next_cursor ?? undefined;
  } while (cursor);
  return { ms: performance.now() - started, matches };
}
