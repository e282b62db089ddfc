/**
 * The trees `deno task bench` measures and what it asks of them. A target is
 * one workspace: a private copy of one or more repositories given by path (the
 * originals are only read), or a synthetic corpus generated on the spot. Here
 * too: the definitions the bench queries (found by reading the files, not the
 * index, so the bench does not depend on the store's tables), the files it
 * edits to time a refresh, and the params each action gets for one definition.
 */
import { basename, extname, join } from "node:path";
import { log } from "./_bench_report.ts";
import { generateSyntheticCorpus } from "./_synthetic_corpus.ts";

/** A tree to measure, as asked for on the command line. */
export type TargetSpec =
  | { kind: "path"; directories: string[] }
  | { kind: "synthetic"; lines: number };

/** One repository of a target: where it came from and where the bench works on it. */
export interface BenchRepository {
  name: string;
  /** The tree given on the command line (never written). */
  source: string;
  /** The bench's copy (or the generated corpus): measured, edited and restored. */
  root: string;
}

/** A tree ready to measure. */
export interface Target {
  label: string;
  kind: TargetSpec["kind"];
  /** The bench's own directory for this target: copies, corpus, cache, socket. */
  workDirectory: string;
  /** What the workspace opens (`--workspace` of the daemon). */
  workspaceDirectory: string;
  /** A fresh cache directory: the targets the bench builds live here. */
  cacheDirectory: string;
  repositories: BenchRepository[];
  synthetic?: { lines: number; seed: number; files: number; generated_lines: number };
  /** Seconds spent copying or generating the tree. */
  prepare_s: number;
  /** Removes the work directory (copies, corpora, caches), unless kept. */
  cleanup: () => void;
}

/** A definition found in the tree: what the bench asks about. */
export interface Definition {
  name: string;
  /** The structural-grep and ast-grep language of its file. */
  language: string;
  repo: string;
  path: string;
  /** 1-based line of the definition. */
  line: number;
}

/** A file of a target, addressed by its repository's root and its relative path. */
export interface TreeFile {
  root: string;
  path: string;
}

/** Resolves a spec to a tree in a new work directory: copies of paths, or a generated corpus. */
export async function prepareTarget(
  spec: TargetSpec,
  options: { seed: number; keep: boolean },
): Promise<Target> {
  const work = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "sextant-bench-" }));
  const cacheDirectory = join(work, "cache");
  Deno.mkdirSync(cacheDirectory);
  const cleanup = options.keep ? () => log(`kept ${work}`) : () => removeTree(work);
  const started = performance.now();
  try {
    if (spec.kind === "synthetic") {
      const corpus = generateSyntheticCorpus({
        lines: spec.lines,
        seed: options.seed,
        root: join(work, `synthetic-${spec.lines}`),
      });
      const prepare_s = (performance.now() - started) / 1000;
      log(`generated ${corpus.files} files, ${corpus.lines} lines in ${prepare_s.toFixed(1)}s`);
      return {
        label: `synthetic-${spec.lines}`,
        kind: "synthetic",
        workDirectory: work,
        workspaceDirectory: corpus.root,
        cacheDirectory,
        repositories: [{ name: basename(corpus.root), source: corpus.root, root: corpus.root }],
        synthetic: {
          lines: spec.lines,
          seed: options.seed,
          files: corpus.files,
          generated_lines: corpus.lines,
        },
        prepare_s: round1(prepare_s),
        cleanup,
      };
    }
    const repositories = await copyRepositories(spec.directories, work);
    const workspaceDirectory = repositories.length === 1
      ? repositories[0].root
      : writeWorkspaceConfig(work, repositories);
    const prepare_s = (performance.now() - started) / 1000;
    log(`copied ${repositories.map((r) => r.name).join(", ")} in ${prepare_s.toFixed(1)}s`);
    return {
      label: repositories.map((r) => r.name).join("+"),
      kind: "path",
      workDirectory: work,
      workspaceDirectory,
      cacheDirectory,
      repositories,
      prepare_s: round1(prepare_s),
      cleanup,
    };
  } catch (error) {
    cleanup();
    throw error;
  }
}

async function copyRepositories(directories: string[], work: string): Promise<BenchRepository[]> {
  const taken = new Set<string>();
  const repositories: BenchRepository[] = [];
  for (const directory of directories) {
    const source = Deno.realPathSync(directory);
    let name = basename(source).replace(/[^A-Za-z0-9._-]+/g, "-") || "repo";
    for (let n = 2; taken.has(name); n++) name = `${basename(source)}-${n}`;
    taken.add(name);
    const root = join(work, name);
    await copyTree(source, root);
    repositories.push({ name, source, root: Deno.realPathSync(root) });
  }
  return repositories;
}

/** A workspace of several repositories side by side: a `sextant.yml` listing them. */
function writeWorkspaceConfig(work: string, repositories: BenchRepository[]): string {
  const directory = join(work, "workspace");
  Deno.mkdirSync(directory);
  const lines = [
    "workspace:",
    "  discover: false",
    "repositories:",
    ...repositories.flatMap((r) => [
      `  - name: ${JSON.stringify(r.name)}`,
      `    path: ${JSON.stringify(r.root)}`,
    ]),
  ];
  Deno.writeTextFileSync(join(directory, "sextant.yml"), lines.join("\n") + "\n");
  return directory;
}

/** A private copy of the tree the bench may edit: a local clone for a git work tree. */
export async function copyTree(source: string, destination: string): Promise<void> {
  let isGit = false;
  try {
    Deno.statSync(join(source, ".git"));
    isGit = true;
  } catch { /* plain directory */ }
  if (isGit) {
    const status = new Deno.Command("git", {
      // --no-optional-locks: a plain `git status` rewrites .git/index, and the tree is not ours.
      args: ["--no-optional-locks", "status", "--porcelain", "--untracked-files=no"],
      cwd: source,
      stdout: "piped",
      stderr: "null",
    }).outputSync();
    if (new TextDecoder().decode(status.stdout).trim() !== "") {
      log(`note: ${source} has uncommitted changes; its copy (a clone) holds only its HEAD`);
    }
  }
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

/** A language the bench can find definitions in and grep: extensions and a definition regex. */
interface ScannedLanguage {
  language: string;
  extensions: string[];
  /** Group 1 is the defined name; multiline, global. */
  definition: RegExp;
}

const SCANNED: ScannedLanguage[] = [
  {
    language: "python",
    extensions: [".py"],
    definition: /^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)/gm,
  },
  {
    language: "typescript",
    extensions: [".ts", ".mts", ".cts"],
    definition:
      /^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?(?:async[ \t]+)?(?:function\*?|class|interface)[ \t]+([A-Za-z_$][\w$]*)/gm,
  },
  {
    language: "tsx",
    extensions: [".tsx"],
    definition:
      /^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:async[ \t]+)?(?:function\*?|class|interface)[ \t]+([A-Za-z_$][\w$]*)/gm,
  },
  {
    language: "javascript",
    extensions: [".js", ".mjs", ".cjs", ".jsx"],
    definition:
      /^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:async[ \t]+)?(?:function\*?|class)[ \t]+([A-Za-z_$][\w$]*)/gm,
  },
  {
    language: "rust",
    extensions: [".rs"],
    definition:
      /^[ \t]*(?:pub(?:\([^)]*\))?[ \t]+)?(?:const[ \t]+)?(?:async[ \t]+)?(?:unsafe[ \t]+)?(?:fn|struct|enum|trait)[ \t]+([A-Za-z_]\w*)/gm,
  },
  {
    language: "go",
    extensions: [".go"],
    definition: /^(?:func(?:[ \t]*\([^)]*\))?|type)[ \t]+([A-Za-z_]\w*)/gm,
  },
  {
    language: "java",
    extensions: [".java"],
    definition:
      /^[ \t]*(?:(?:public|private|protected|static|final|abstract)[ \t]+)*(?:class|interface|enum)[ \t]+([A-Za-z_]\w*)/gm,
  },
];

const BY_EXTENSION = new Map(
  SCANNED.flatMap((entry) => entry.extensions.map((ext) => [ext, entry] as const)),
);

/** The definitions' language of a path, when the bench scans it. */
export function scannedLanguage(path: string): string | null {
  return BY_EXTENSION.get(extname(path))?.language ?? null;
}

/** Files of a repository: `git ls-files` when it is a git tree, else a walk (hidden skipped). */
export function listFiles(root: string): string[] {
  const out = new Deno.Command("git", {
    args: ["ls-files", "-z"],
    cwd: root,
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  if (out.success) {
    return new TextDecoder().decode(out.stdout).split("\0").filter(Boolean).sort();
  }
  const found: string[] = [];
  const walk = (relative: string) => {
    for (const entry of Deno.readDirSync(join(root, relative))) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory) walk(path);
      else if (entry.isFile) found.push(path);
    }
  };
  walk("");
  return found.sort();
}

/** Files larger than this are not scanned for definitions (generated tables, vendored bundles). */
const SCAN_MAX_BYTES = 512 * 1024;

/**
 * Definitions in the target: names of at least six characters (tests left
 * out), the first definition of each name kept, read from up to `maxFiles`
 * files spread evenly over each repository's sorted file list. Sorted by name.
 */
export function scanDefinitions(target: Target, options: { maxFiles: number }): Definition[] {
  const byName = new Map<string, Definition>();
  const perRepo = Math.max(1, Math.floor(options.maxFiles / target.repositories.length));
  for (const repo of target.repositories) {
    const files = spread(
      listFiles(repo.root).filter((path) => BY_EXTENSION.has(extname(path))),
      perRepo,
    );
    for (const path of files) {
      const scanned = BY_EXTENSION.get(extname(path))!;
      let text: string;
      try {
        if (Deno.statSync(join(repo.root, path)).size > SCAN_MAX_BYTES) continue;
        text = Deno.readTextFileSync(join(repo.root, path));
      } catch {
        continue;
      }
      for (const { name, line } of definitionsIn(text, scanned.definition)) {
        if (name.length < 6 || /^_*test/i.test(name) || byName.has(name)) continue;
        byName.set(name, { name, language: scanned.language, repo: repo.name, path, line });
      }
    }
  }
  return [...byName.values()].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

function* definitionsIn(text: string, pattern: RegExp): Generator<{ name: string; line: number }> {
  const regex = new RegExp(pattern.source, pattern.flags);
  let line = 1;
  let scanned = 0;
  for (const match of text.matchAll(regex)) {
    for (let i = scanned; i < match.index; i++) if (text.charCodeAt(i) === 10) line++;
    scanned = match.index;
    yield { name: match[1], line };
  }
}

/** Source files to edit (TypeScript or Python, the languages `appendedFunction` writes). */
export function editableFiles(target: Target, count: number): TreeFile[] {
  const files = target.repositories.flatMap((repo) =>
    listFiles(repo.root)
      .filter((path) => path.endsWith(".py") || path.endsWith(".ts"))
      .map((path) => ({ root: repo.root, path }))
  );
  return spread(files, count);
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
export function spread<T>(items: T[], count: number): T[] {
  if (items.length <= count) return [...items];
  return Array.from(
    { length: count },
    (_, i) => items[Math.floor(((i + 0.5) * items.length) / count)],
  );
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
