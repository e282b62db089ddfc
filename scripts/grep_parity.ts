/**
 * Parity of structural grep with ast-grep (issue 6): every pattern of
 * `_grep_patterns.ts` runs through Sextant (in-process, warm parsers, index
 * refreshed once beforehand) and through `ast-grep run --json=stream` on the
 * same checkout. Per pattern: matches in both, only in Sextant, only in
 * ast-grep (split into documented differences and unexplained ones), and the
 * two wall times.
 *
 *   deno run -A --unstable-worker-options scripts/grep_parity.ts \
 *     --checkouts /tmp/grepwork --cache /tmp/grepwork/cache \
 *     [--ast-grep PATH] [--repo sympy]... [--json report.json] [--keys hits.txt]
 *
 * `--checkouts DIR` holds one work tree per repository, named as in
 * PARITY_REPOSITORIES (`git clone /work/.mirror/<owner>+<name>/repo DIR/<repo>`);
 * `--cache DIR/<repo>` keeps each index between runs. `--keys FILE` writes
 * every Sextant hit as one sorted line (repository, pattern, range, bindings),
 * so two versions of grep can be shown to answer identically with `diff`.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runAction } from "../src/actions/dispatch.ts";
import { grepLanguageForPath, grepLanguageNamed } from "../src/grep/languages.ts";
import { insideLiteralText } from "../src/grep/matcher.ts";
import { parserFor } from "../src/grep/parsers.ts";
import { forgetRegions } from "../src/grep/regions.ts";
import type { ResultHit } from "../src/protocol/types.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { PARITY_PATTERNS, type ParityPattern } from "./_grep_patterns.ts";

interface PatternReport {
  repo: string;
  language: string;
  pattern: string;
  shape: string;
  selective: boolean;
  both: number;
  onlySextant: number;
  onlyAstGrep: number;
  /** Differences with a documented reason, by reason. */
  explained: Record<string, number>;
  /** Keys of differences nobody explained: bugs. */
  unexplained: string[];
  /** Sextant with no statement ranges remembered (a fresh process). */
  sextantMs: number;
  /** Sextant asked again: ranges of the files it parsed are remembered (a running daemon). */
  sextantWarmMs: number;
  astGrepMs: number;
  ratio: number;
  warmRatio: number;
  error?: string;
}

const args = parseArgs({
  args: Deno.args,
  options: {
    checkouts: { type: "string", default: "/tmp/grepwork" },
    cache: { type: "string", default: "/tmp/grepwork/cache" },
    "ast-grep": { type: "string", default: "ast-grep" },
    repo: { type: "string", multiple: true },
    json: { type: "string" },
    keys: { type: "string" },
  },
});

const SYNTAX_ERROR =
  "the file has a syntax error in Sextant's grammar (the two grammars recover differently)";

const fileLines = new Map<string, string[]>();
const wanted = new Set(args.values.repo ?? []);
const patterns = PARITY_PATTERNS.filter((p) => wanted.size === 0 || wanted.has(p.repo));
const reports: PatternReport[] = [];
const repoSizes: Record<string, { files: number; lines: number; refreshMs: number }> = {};
/** Every Sextant hit of the run, for `--keys`. */
const hitLines: string[] = [];

for (const repo of [...new Set(patterns.map((p) => p.repo))]) {
  const root = join(args.values.checkouts!, repo);
  const workspace = await Workspace.open({
    directory: root,
    cacheDirectory: join(args.values.cache!, repo),
  });
  try {
    const refreshStarted = performance.now();
    await runAction(workspace, "refresh", {});
    const refreshMs = performance.now() - refreshStarted;
    const ofRepo = patterns.filter((p) => p.repo === repo);
    const indexed = indexedFiles(workspace);
    repoSizes[repo] = { ...sizeOf(indexed, ofRepo[0].language), refreshMs };
    for (const language of new Set(ofRepo.map((p) => p.language))) {
      await parserFor(grepLanguageNamed(language)!); // warm: a daemon loads each grammar once
    }
    for (const pattern of ofRepo) {
      reports.push(await compare(workspace, { root, pattern, indexed }));
      const last = reports[reports.length - 1];
      if (args.values.json) {
        // Written after each pattern, so a long run that stops leaves what it measured.
        Deno.writeTextFileSync(
          args.values.json,
          JSON.stringify({ repositories: repoSizes, patterns: reports }, null, 2),
        );
      }
      console.error(
        `${repo} ${
          JSON.stringify(pattern.pattern)
        }: both ${last.both}, only sextant ${last.onlySextant}, only ast-grep ${last.onlyAstGrep}, ${
          last.sextantMs.toFixed(0)
        } ms vs ${last.astGrepMs.toFixed(0)} ms${last.error ? ` ERROR ${last.error}` : ""}`,
      );
    }
  } finally {
    workspace.close();
  }
}

printTable(reports);
if (args.values.keys) Deno.writeTextFileSync(args.values.keys, hitLines.sort().join("\n") + "\n");
if (args.values.json) {
  Deno.writeTextFileSync(
    args.values.json,
    JSON.stringify({ repositories: repoSizes, patterns: reports }, null, 2),
  );
}

function indexedFiles(workspace: Workspace): Map<string, number> {
  const repo = workspace.repositories[0];
  const files =
    workspace.withReader(repo, (reader) => [...reader.fileTable().files.values()]).value;
  return new Map((files ?? []).map((file) => [file.path, file.lineCount]));
}

function sizeOf(indexed: Map<string, number>, language: string) {
  const extensions = grepLanguageNamed(language)!.extensions;
  let files = 0;
  let lines = 0;
  for (const [path, count] of indexed) {
    if (extensions.some((ext) => path.endsWith(ext))) {
      files++;
      lines += count;
    }
  }
  return { files, lines };
}

async function compare(
  workspace: Workspace,
  options: { root: string; pattern: ParityPattern; indexed: Map<string, number> },
): Promise<PatternReport> {
  const { root, pattern, indexed } = options;
  const report: PatternReport = {
    repo: pattern.repo,
    language: pattern.language,
    pattern: pattern.pattern,
    shape: pattern.shape,
    selective: pattern.selective ?? false,
    both: 0,
    onlySextant: 0,
    onlyAstGrep: 0,
    explained: {},
    unexplained: [],
    sextantMs: 0,
    sextantWarmMs: 0,
    astGrepMs: 0,
    ratio: 0,
    warmRatio: 0,
  };
  const sextant = new Set<string>();
  try {
    forgetRegions();
    const cold = await sextantGrep(workspace, pattern);
    report.sextantMs = cold.ms;
    const warm = await sextantGrep(workspace, pattern);
    report.sextantWarmMs = warm.ms;
    for (const hit of cold.hits) sextant.add(keyOfHit(root, hit));
    for (const hit of cold.hits) hitLines.push(exactKey(pattern, hit));
    const warmKeys = new Set(warm.hits.map((hit) => keyOfHit(root, hit)));
    if (warmKeys.size !== sextant.size || [...warmKeys].some((key) => !sextant.has(key))) {
      report.unexplained.push("sextant: the warm answer differs from the cold one");
    }
  } catch (error) {
    report.error = `sextant: ${(error as Error).message}`;
  }
  const started = performance.now();
  const output = await new Deno.Command(args.values["ast-grep"]!, {
    args: ["run", "--pattern", pattern.pattern, "--lang", pattern.language, "--json=stream", "."],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  report.astGrepMs = performance.now() - started;
  const astGrep = new Map<string, { file: string; start: number; end: number }>();
  for (const line of new TextDecoder().decode(output.stdout).split("\n")) {
    if (!line.trim()) continue;
    const match = JSON.parse(line) as {
      file: string;
      text: string;
      range: { start: { line: number }; end: { line: number }; byteOffset: { start: number } };
    };
    const file = match.file.replace(/^\.\//, "");
    const key = `${file}:${match.range.start.line + 1}:${match.range.end.line + 1}:${match.text}`;
    astGrep.set(key, { file, start: match.range.start.line, end: match.range.end.line });
  }
  report.ratio = report.astGrepMs > 0 ? report.sextantMs / report.astGrepMs : 0;
  report.warmRatio = report.astGrepMs > 0 ? report.sextantWarmMs / report.astGrepMs : 0;
  for (const key of sextant) {
    if (astGrep.has(key)) report.both++;
    else {
      report.onlySextant++;
      const path = key.slice(0, key.indexOf(":"));
      const [, start, end] = key.split(":");
      const reason = path.split("/").some((segment) => segment.startsWith("."))
        ? "hidden path (ast-grep skips hidden files and directories)"
        : path.endsWith(".h") && grepLanguageNamed(pattern.language)?.language === "cpp"
        ? "a `.h` file, C++ in Sextant and C in ast-grep"
        : await commentInside(root, {
            file: path,
            start: Number(start) - 1,
            end: Number(end) - 1,
          }, pattern.language)
        ? "a comment inside the match (Sextant skips comments between a pattern's nodes everywhere; ast-grep's smart strictness only in some positions)"
        : await hasSyntaxError(root, path, pattern.language)
        ? SYNTAX_ERROR
        : null;
      if (reason) report.explained[reason] = (report.explained[reason] ?? 0) + 1;
      else report.unexplained.push(`sextant only: ${key.slice(0, 160)}`);
    }
  }
  for (const [key, where] of astGrep) {
    if (sextant.has(key)) continue;
    report.onlyAstGrep++;
    const reason = await explain(root, where, pattern.language, indexed);
    if (reason) report.explained[reason] = (report.explained[reason] ?? 0) + 1;
    else report.unexplained.push(`ast-grep only: ${key.slice(0, 160)}`);
  }
  return report;
}

/** Every hit of a pattern, following cursors, and the wall time it took. */
async function sextantGrep(
  workspace: Workspace,
  pattern: ParityPattern,
): Promise<{ hits: ResultHit[]; ms: number }> {
  const started = performance.now();
  const hits: ResultHit[] = [];
  let cursor: string | undefined;
  do {
    const answer = await runAction(workspace, "grep", {
      pattern: pattern.pattern,
      language: pattern.language,
      limit: 1000,
      timeout_ms: 300_000,
      ...(cursor ? { cursor } : {}),
    });
    hits.push(...answer.results);
    cursor = answer.next_cursor ?? undefined;
  } while (cursor);
  return { hits, ms: performance.now() - started };
}

/** The documented reason a match only ast-grep found is not Sextant's, or null. */
async function explain(
  root: string,
  where: { file: string; start: number; end: number },
  languageName: string,
  indexed: Map<string, number>,
): Promise<string | null> {
  if (!indexed.has(where.file)) return "file not indexed (default excludes, size limit, secrets)";
  const language = grepLanguageNamed(languageName)!;
  if (grepLanguageForPath(where.file) !== language) {
    return "a file of another language in Sextant (`.h` is C++ here, C in ast-grep)";
  }
  const parser = await parserFor(language);
  const text = Deno.readTextFileSync(join(root, where.file));
  const tree = parser.parse(text);
  if (!tree) return null;
  try {
    const node = tree.rootNode.descendantForPosition({ row: where.start, column: 0 });
    let inside = false;
    for (let current: typeof node | null = node; current; current = current.parent) {
      if (
        current.startPosition.row <= where.start && current.endPosition.row >= where.end &&
        insideLiteralText(current, language)
      ) {
        inside = true;
        break;
      }
    }
    if (inside) return "inside a comment or string literal (never matched by design)";
    return tree.rootNode.hasError ? SYNTAX_ERROR : null;
  } finally {
    tree.delete();
  }
}

/** Whether Sextant's grammar parses a file with an error. */
async function hasSyntaxError(root: string, file: string, languageName: string): Promise<boolean> {
  const parser = await parserFor(grepLanguageNamed(languageName)!);
  const tree = parser.parse(Deno.readTextFileSync(join(root, file)));
  if (!tree) return false;
  try {
    return tree.rootNode.hasError;
  } finally {
    tree.delete();
  }
}

/** Whether a comment lies inside the node Sextant matched on these lines (0-based). */
async function commentInside(
  root: string,
  where: { file: string; start: number; end: number },
  languageName: string,
): Promise<boolean> {
  const parser = await parserFor(grepLanguageNamed(languageName)!);
  const tree = parser.parse(Deno.readTextFileSync(join(root, where.file)));
  if (!tree) return false;
  try {
    const stack = [tree.rootNode];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.endPosition.row < where.start || node.startPosition.row > where.end) continue;
      const inside = node.startPosition.row >= where.start && node.endPosition.row <= where.end;
      if (inside && node.type.includes("comment")) return true;
      for (const child of node.children) if (child) stack.push(child);
    }
    return false;
  } finally {
    tree.delete();
  }
}

/** A hit as one line: repository, pattern, path, range and bindings, exactly. */
function exactKey(pattern: ParityPattern, hit: ResultHit): string {
  const range = `${hit.start_line}:${hit.start_col}-${hit.end_line}:${hit.end_col}`;
  return [pattern.repo, JSON.stringify(pattern.pattern), hit.path, range, hit.node_kind]
    .concat(JSON.stringify(hit.bindings ?? {})).join("\t");
}

/** path:start:end:text of a hit, its text cut from the checkout by line and UTF-16 column. */
function keyOfHit(root: string, hit: ResultHit): string {
  const full = join(root, hit.path);
  let lines = fileLines.get(full);
  if (!lines) {
    lines = Deno.readTextFileSync(full).split("\n");
    fileLines.set(full, lines);
  }
  const startLine = hit.start_line;
  const endLine = hit.end_line;
  const startCol = hit.start_col as number;
  const endCol = hit.end_col as number;
  let text: string;
  if (startLine === endLine) text = lines[startLine - 1].slice(startCol - 1, endCol - 1);
  else {
    text = [
      lines[startLine - 1].slice(startCol - 1),
      ...lines.slice(startLine, endLine - 1),
      lines[endLine - 1].slice(0, endCol - 1),
    ].join("\n");
  }
  return `${hit.path}:${startLine}:${endLine}:${text}`;
}

function printTable(rows: PatternReport[]): void {
  const header =
    "repo     lang        both  +sx(expl)  +ag(expl)  sx ms  warm ms   ag ms   ratio  warm  pattern";
  console.log(header);
  for (const row of rows) {
    const explained = Object.values(row.explained).reduce((a, b) => a + b, 0);
    console.log(
      [
        row.repo.padEnd(8),
        row.language.padEnd(10),
        String(row.both).padStart(5),
        `${row.onlySextant}`.padStart(9),
        `${row.onlyAstGrep}(${explained})`.padStart(10),
        row.sextantMs.toFixed(0).padStart(6),
        row.sextantWarmMs.toFixed(0).padStart(8),
        row.astGrepMs.toFixed(0).padStart(7),
        row.ratio.toFixed(2).padStart(7),
        row.warmRatio.toFixed(2).padStart(5),
        ` ${row.selective ? "*" : " "}${JSON.stringify(row.pattern)}${
          row.error ? `  ERROR ${row.error}` : ""
        }`,
      ].join(" "),
    );
    for (const diff of row.unexplained.slice(0, 5)) console.log(`    ${diff}`);
  }
  const agree = rows.filter((r) => r.unexplained.length === 0 && !r.error).length;
  console.log(`\n${agree}/${rows.length} patterns agree (differences only documented ones)`);
  const selective = rows.filter((r) => r.selective && !r.error);
  for (const [label, rowsOf] of [["all patterns", rows], ["selective patterns (*)", selective]]) {
    const ok = (rowsOf as PatternReport[]).filter((r) => !r.error);
    if (ok.length === 0) continue;
    const median = (values: number[]) =>
      values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
    console.log(
      `${label}: median ratio sextant/ast-grep cold ${
        median(ok.map((r) => r.ratio)).toFixed(3)
      }, warm ${median(ok.map((r) => r.warmRatio)).toFixed(3)}`,
    );
  }
}
