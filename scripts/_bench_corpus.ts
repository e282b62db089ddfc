/**
 * The trees `deno task bench` measures and what it asks of them: a repository
 * given by path or a synthetic corpus generated on the spot, the files it
 * edits to time a refresh, the identifiers it queries, and the params each
 * action gets for one identifier.
 */
import { join } from "node:path";
import { type Repository, Workspace } from "../src/workspace/workspace.ts";
import { log } from "./_bench_report.ts";
import { generateSyntheticCorpus } from "./_synthetic_corpus.ts";

/** A tree to measure, as asked for on the command line. */
export type TargetSpec = { kind: "path"; directory: string } | { kind: "synthetic"; lines: number };

/** A tree ready to measure. */
export interface Target {
  label: string;
  directory: string;
  kind: TargetSpec["kind"];
  synthetic?: { lines: number; seed: number; files: number; generated_lines: number };
  /** Removes what the bench created (synthetic corpora), unless kept. */
  cleanup: () => void;
}

/** A workspace opened on one measured tree, and its repository. */
export interface IndexedRepo {
  workspace: Workspace;
  repo: Repository;
}

/** Resolves a spec to a tree; synthetic corpora are generated here, just before measuring. */
export function prepareTarget(
  spec: TargetSpec,
  options: { seed: number; keep: boolean },
): Target {
  if (spec.kind === "path") {
    return { label: spec.directory, directory: spec.directory, kind: "path", cleanup: () => {} };
  }
  const started = performance.now();
  const corpus = generateSyntheticCorpus({ lines: spec.lines, seed: options.seed });
  const seconds = (performance.now() - started) / 1000;
  log(`generated ${corpus.files} files, ${corpus.lines} lines in ${seconds.toFixed(1)}s`);
  return {
    label: `synthetic-${spec.lines}`,
    directory: corpus.root,
    kind: "synthetic",
    synthetic: {
      lines: spec.lines,
      seed: options.seed,
      files: corpus.files,
      generated_lines: corpus.lines,
    },
    cleanup: options.keep ? () => log(`kept ${corpus.root}`) : () => removeTree(corpus.root),
  };
}

/** A private copy of the tree the bench may edit: a local clone for a git work tree. */
export async function copyTree(source: string, destination: string): Promise<void> {
  let isGit = false;
  try {
    Deno.statSync(join(source, ".git"));
    isGit = true;
  } catch { /* plain directory */ }
  const command = isGit
    ? new Deno.Command("git", { args: ["clone", "-q", "--local", source, destination] })
    : new Deno.Command("cp", { args: ["-a", source, destination] });
  const out = await command.output();
  if (!out.success) {
    throw new Error(`cannot copy ${source}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

export function removeTree(path: string): void {
  try {
    Deno.removeSync(path, { recursive: true });
  } catch { /* already gone */ }
}

/** Source files to edit: TypeScript or Python, spread evenly over the sorted paths. */
export function editableFiles(indexed: IndexedRepo, count: number): string[] {
  const answer = indexed.workspace.withReader(
    indexed.repo,
    (reader) =>
      [...reader.fileTable().files.values()]
        .filter((file) => file.language === "typescript" || file.language === "python")
        .map((file) => file.path)
        .sort(),
  );
  return spread(answer.value ?? [], count);
}

/** Query identifiers: distinct definition names spread over the sorted symbol table. */
export function pickQueries(indexed: IndexedRepo, count: number): string[] {
  const answer = indexed.workspace.withReader(
    indexed.repo,
    (reader) =>
      reader.symbolsOfKinds(["function", "class", "method", "interface"]).map((s) => s.name),
  );
  const names = [...new Set(answer.value ?? [])]
    .filter((name) => name.length >= 6 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    .sort();
  return spread(names, count);
}

/** The params an action gets for one picked identifier. */
export function paramsFor(action: string, identifier: string): Record<string, unknown> {
  if (action === "status") return {};
  if (action === "search" || action === "symbols") return { query: identifier, limit: 10 };
  if (action === "grep") return { pattern: `${identifier}($$$ARGS)` };
  return { symbol: identifier };
}

/** A function appended to a file to make a one-file change (numbered, so each is new). */
export function appendedFunction(path: string, n: number): string {
  if (path.endsWith(".py")) {
    return `\n\ndef sextant_bench_appended_${n}(value):\n    return value * ${n + 2}\n`;
  }
  return `\nexport function sextantBenchAppended${n}(value: number): number {\n` +
    `  return value * ${n + 2};\n}\n`;
}

/** `count` items at even intervals (deterministic); all of them when there are fewer. */
function spread<T>(items: T[], count: number): T[] {
  if (items.length <= count) return [...items];
  return Array.from(
    { length: count },
    (_, i) => items[Math.floor(((i + 0.5) * items.length) / count)],
  );
}
