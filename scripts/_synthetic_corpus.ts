/**
 * A deterministic synthetic corpus for `deno task bench`: TypeScript, Python
 * and Markdown files in nested folders, with classes, functions, imports
 * between files and calls across them. The same seed and size always give the
 * same bytes; the tree is committed to a fresh git repository so inventory
 * takes the `git ls-files` path, as it does on real repositories.
 *
 * Standalone: `deno run --allow-all scripts/_synthetic_corpus.ts 50000 [seed] [dir]`.
 */
import { dirname, join, relative } from "node:path";

export interface SyntheticOptions {
  /** Approximate total line count; generation stops at the first file past it. */
  lines: number;
  seed?: number;
  /** Where to write (default: a new temporary directory). */
  root?: string;
  /** Commit the tree to a fresh git repository (default true). */
  git?: boolean;
}

export interface SyntheticCorpus {
  root: string;
  seed: number;
  files: number;
  lines: number;
  bytes: number;
  byLanguage: Record<Kind, { files: number; lines: number }>;
}

type Kind = "typescript" | "python" | "markdown";

/** A generated source module other files may import from. */
interface Module {
  path: string;
  /** How an importer names it: a file path (TS) or dotted module (Python). */
  specifier: string;
  functions: string[];
  classes: string[];
}

interface GenState {
  rng: Random;
  paths: Set<string>;
  modules: Record<"typescript" | "python", Module[]>;
}

const VERBS = words(
  "parse render load store resolve merge validate encode decode compute fetch index scan build format normalize collect emit apply select",
);
const ADJECTIVES = words(
  "Fast Lazy Remote Local Shared Cached Nested Strict Pending Partial",
);
const NOUNS = words(
  "Config Widget Token Buffer Route Session Ledger Cursor Schema Batch Matrix Record Packet Policy Channel Report Vertex Bundle Signal Sample",
);
const AREAS = ["core", "io", "net", "util", "model", "view", "store", "sync", "auth", "jobs"];
const WORDS = words(
  "the cache returns request value when each entry is stored after a refresh and before handler runs with limits for",
);

function words(list: string): readonly string[] {
  return list.split(" ");
}

/** A small seeded PRNG (mulberry32): deterministic across platforms. */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Writes the corpus and (by default) commits it; returns its totals. */
export function generateSyntheticCorpus(options: SyntheticOptions): SyntheticCorpus {
  const seed = options.seed ?? 1;
  const root = options.root ?? Deno.makeTempDirSync({ prefix: "sextant-bench-corpus-" });
  const state: GenState = {
    rng: new Random(seed),
    paths: new Set(),
    modules: { typescript: [], python: [] },
  };
  const corpus: SyntheticCorpus = {
    root,
    seed,
    files: 0,
    lines: 0,
    bytes: 0,
    byLanguage: {
      typescript: { files: 0, lines: 0 },
      python: { files: 0, lines: 0 },
      markdown: { files: 0, lines: 0 },
    },
  };
  writeCorpusFile(root, corpus, "markdown", "README.md", readme(seed, options.lines));
  while (corpus.lines < options.lines) {
    const kind = pickKind(state.rng);
    const { path, text } = generateFile(state, kind);
    writeCorpusFile(root, corpus, kind, path, text);
  }
  if (options.git ?? true) commitTree(root);
  corpus.root = Deno.realPathSync(root);
  return corpus;
}

function writeCorpusFile(
  root: string,
  corpus: SyntheticCorpus,
  kind: Kind,
  path: string,
  text: string,
): void {
  const full = join(root, path);
  Deno.mkdirSync(dirname(full), { recursive: true });
  const bytes = new TextEncoder().encode(text);
  Deno.writeFileSync(full, bytes);
  const lines = countLines(text);
  corpus.files++;
  corpus.lines += lines;
  corpus.bytes += bytes.length;
  corpus.byLanguage[kind].files++;
  corpus.byLanguage[kind].lines += lines;
}

function countLines(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return text.length > 0 && !text.endsWith("\n") ? n + 1 : n;
}

function pickKind(rng: Random): Kind {
  const roll = rng.next();
  if (roll < 0.5) return "typescript";
  if (roll < 0.85) return "python";
  return "markdown";
}

function generateFile(state: GenState, kind: Kind): { path: string; text: string } {
  if (kind === "typescript") return typescriptFile(state);
  if (kind === "python") return pythonFile(state);
  return markdownFile(state);
}

function commitTree(root: string): void {
  const run = (...args: string[]) => {
    const out = new Deno.Command("git", { args, cwd: root, stdout: "null", stderr: "piped" })
      .outputSync();
    if (!out.success) {
      throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
    }
  };
  run("init", "-q");
  run("add", "-A");
  run(
    "-c",
    "user.email=bench@sextant.invalid",
    "-c",
    "user.name=sextant-bench",
    "-c",
    "commit.gpgsign=false",
    "commit",
    "-qm",
    "synthetic corpus",
  );
}

// ---------------------------------------------------------------- naming

function uniquePath(state: GenState, make: () => string): string {
  for (let attempt = 0;; attempt++) {
    const base = make();
    const path = attempt < 4 ? base : base.replace(/(\.\w+)$/, `_${attempt}$1`);
    if (!state.paths.has(path)) {
      state.paths.add(path);
      return path;
    }
  }
}

function camelName(rng: Random): string {
  return `${rng.pick(VERBS)}${rng.pick(ADJECTIVES)}${rng.pick(NOUNS)}`;
}

function className(rng: Random): string {
  return `${rng.pick(ADJECTIVES)}${rng.pick(NOUNS)}${rng.pick(["Store", "Service", "Builder"])}`;
}

function snake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

function distinct(rng: Random, count: number, make: (rng: Random) => string): string[] {
  const names = new Set<string>();
  for (let guard = 0; names.size < count && guard < count * 10; guard++) names.add(make(rng));
  return [...names];
}

/** Up to `count` earlier modules of a language to import from. */
function dependencies(state: GenState, kind: "typescript" | "python", count: number): Module[] {
  const pool = state.modules[kind];
  if (pool.length === 0) return [];
  const chosen = new Set<Module>();
  for (let i = 0; i < count; i++) chosen.add(state.rng.pick(pool));
  return [...chosen].filter((m) => m.functions.length > 0);
}

interface Callables {
  imported: string[];
  local: string[];
}

function callable(rng: Random, names: Callables): string {
  const useImported = names.imported.length > 0 && (names.local.length === 0 || rng.chance(0.5));
  return rng.pick(useImported ? names.imported : names.local);
}

// ---------------------------------------------------------------- TypeScript

function typescriptFile(state: GenState): { path: string; text: string } {
  const { rng } = state;
  const pkg = snake(rng.pick(NOUNS));
  const path = uniquePath(state, () => {
    const depth = rng.int(0, 2);
    const dirs = ["packages", pkg, ...Array.from({ length: depth }, () => rng.pick(AREAS))];
    return `${dirs.join("/")}/${snake(rng.pick(NOUNS))}_${rng.pick(VERBS)}.ts`;
  });
  const deps = dependencies(state, "typescript", rng.int(0, 3));
  const functions = distinct(rng, rng.int(3, 8), camelName);
  const classes = distinct(rng, rng.int(1, 2), className);
  const names: Callables = { imported: deps.map((d) => d.functions[0]), local: [] };
  const parts = [`// ${path}: synthetic module for benchmarks.`, ...tsImports(path, deps), ""];
  for (const name of functions) {
    parts.push(tsFunction(rng, name, names));
    names.local.push(name);
  }
  for (const name of classes) parts.push(tsClass(rng, name, names));
  state.modules.typescript.push({ path, specifier: path, functions, classes });
  return { path, text: parts.join("\n") };
}

function tsImports(path: string, deps: Module[]): string[] {
  return deps.map((dep) => {
    let spec = relative(dirname(path), dep.specifier);
    if (!spec.startsWith(".")) spec = `./${spec}`;
    return `import { ${dep.functions[0]} } from "${spec}";`;
  });
}

function tsFunction(rng: Random, name: string, names: Callables): string {
  const lines = [
    `/** ${sentence(rng, 8)} */`,
    `export function ${name}(input: number, label = "${rng.pick(NOUNS).toLowerCase()}"): number {`,
    `  let total = input * ${rng.int(2, 9)};`,
  ];
  lines.push(...tsStatements(rng, names, rng.int(2, 8)));
  lines.push("  return total + label.length;", "}", "");
  return lines.join("\n");
}

function tsStatements(rng: Random, names: Callables, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const target = names.imported.length + names.local.length > 0 ? callable(rng, names) : null;
    const roll = rng.next();
    if (target && roll < 0.45) out.push(`  total += ${target}(total % ${rng.int(7, 97)});`);
    else if (roll < 0.7) {
      out.push(`  for (let i = 0; i < ${rng.int(2, 6)}; i++) {`);
      out.push(`    total = (total + i * ${rng.int(3, 31)}) % ${rng.int(1000, 9999)};`);
      out.push("  }");
    } else if (roll < 0.85) {
      out.push(`  if (total > ${rng.int(100, 900)}) {`, `    total -= ${rng.int(1, 50)};`, "  }");
    } else out.push(`  // ${sentence(rng, 6)}`);
  }
  return out;
}

function tsClass(rng: Random, name: string, names: Callables): string {
  const methods = distinct(rng, rng.int(2, 5), (r) => `${r.pick(VERBS)}${r.pick(NOUNS)}`);
  const lines = [
    `/** ${sentence(rng, 10)} */`,
    `export class ${name} {`,
    "  readonly #items: number[] = [];",
    "",
    `  constructor(readonly limit = ${rng.int(10, 500)}) {}`,
    "",
  ];
  for (const method of methods) {
    lines.push(`  ${method}(value: number): number {`);
    lines.push("    let total = value + this.#items.length;");
    lines.push(...tsStatements(rng, names, rng.int(1, 4)).map((l) => `  ${l}`));
    lines.push(
      "    this.#items.push(total);",
      "    return Math.min(total, this.limit);",
      "  }",
      "",
    );
  }
  lines.push("}", "");
  return lines.join("\n");
}

// ---------------------------------------------------------------- Python

function pythonFile(state: GenState): { path: string; text: string } {
  const { rng } = state;
  const pkg = snake(rng.pick(NOUNS));
  const path = uniquePath(state, () => {
    const dirs = ["services", pkg, ...Array.from({ length: rng.int(0, 2) }, () => rng.pick(AREAS))];
    return `${dirs.join("/")}/${snake(rng.pick(NOUNS))}_${rng.pick(VERBS)}.py`;
  });
  const deps = dependencies(state, "python", rng.int(0, 3));
  const functions = distinct(rng, rng.int(3, 8), (r) => snake(camelName(r)));
  const classes = distinct(rng, rng.int(1, 2), className);
  const names: Callables = { imported: deps.map((d) => d.functions[0]), local: [] };
  const header = [`"""${path}: synthetic module for benchmarks."""`, "", "import math"];
  const parts = [...header, ...pyImports(deps), "", ""];
  for (const name of functions) {
    parts.push(pyFunction(rng, name, names));
    names.local.push(name);
  }
  for (const name of classes) parts.push(pyClass(rng, name, names));
  const specifier = path.replace(/\.py$/, "").replaceAll("/", ".");
  state.modules.python.push({ path, specifier, functions, classes });
  return { path, text: parts.join("\n") };
}

function pyImports(deps: Module[]): string[] {
  return deps.map((dep) => `from ${dep.specifier} import ${dep.functions[0]}`);
}

function pyFunction(rng: Random, name: string, names: Callables): string {
  const lines = [
    `def ${name}(value, label="${rng.pick(NOUNS).toLowerCase()}"):`,
    `    """${sentence(rng, 8)}"""`,
    `    total = value * ${rng.int(2, 9)}`,
  ];
  lines.push(...pyStatements(rng, names, rng.int(2, 8), "    "));
  lines.push("    return total + len(label)", "", "");
  return lines.join("\n");
}

function pyStatements(rng: Random, names: Callables, count: number, indent: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const target = names.imported.length + names.local.length > 0 ? callable(rng, names) : null;
    const roll = rng.next();
    if (target && roll < 0.45) out.push(`${indent}total += ${target}(total % ${rng.int(7, 97)})`);
    else if (roll < 0.7) {
      out.push(`${indent}for i in range(${rng.int(2, 6)}):`);
      out.push(`${indent}    total = (total + i * ${rng.int(3, 31)}) % ${rng.int(1000, 9999)}`);
    } else if (roll < 0.85) {
      out.push(`${indent}if total > ${rng.int(100, 900)}:`);
      out.push(`${indent}    total = math.floor(total / ${rng.int(2, 5)})`);
    } else out.push(`${indent}# ${sentence(rng, 6)}`);
  }
  return out;
}

function pyClass(rng: Random, name: string, names: Callables): string {
  const methods = distinct(rng, rng.int(2, 5), (r) => snake(`${r.pick(VERBS)}${r.pick(NOUNS)}`));
  const lines = [
    `class ${name}:`,
    `    """${sentence(rng, 10)}"""`,
    "",
    `    def __init__(self, limit=${rng.int(10, 500)}):`,
    "        self.limit = limit",
    "        self.items = []",
    "",
  ];
  for (const method of methods) {
    lines.push(`    def ${method}(self, value):`);
    lines.push("        total = value + len(self.items)");
    lines.push(...pyStatements(rng, names, rng.int(1, 4), "        "));
    lines.push("        self.items.append(total)", "        return min(total, self.limit)", "");
  }
  lines.push("");
  return lines.join("\n");
}

// ---------------------------------------------------------------- Markdown

function markdownFile(state: GenState): { path: string; text: string } {
  const { rng } = state;
  const path = uniquePath(state, () => {
    const dirs = ["docs", ...Array.from({ length: rng.int(0, 2) }, () => rng.pick(AREAS))];
    return `${dirs.join("/")}/${snake(rng.pick(NOUNS))}_${rng.pick(VERBS)}.md`;
  });
  const known = [...state.modules.typescript, ...state.modules.python];
  const lines = [`# ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} guide`, ""];
  const sections = rng.int(2, 6);
  for (let s = 0; s < sections; s++) lines.push(...markdownSection(rng, known));
  return { path, text: lines.join("\n") };
}

function markdownSection(rng: Random, known: Module[]): string[] {
  const mod = known.length > 0 ? rng.pick(known) : null;
  const symbol = mod ? rng.pick([...mod.functions, ...mod.classes]) : camelName(rng);
  const lines = [`## ${rng.pick(VERBS)} ${rng.pick(NOUNS).toLowerCase()}`, ""];
  lines.push(`${capital(sentence(rng, 12))}. See \`${symbol}\` in \`${mod?.path ?? "src"}\`.`);
  lines.push(`${capital(sentence(rng, 14))}.`, "");
  for (let i = 0; i < rng.int(1, 4); i++) lines.push(`- ${sentence(rng, rng.int(4, 9))}`);
  lines.push("");
  if (rng.chance(0.5)) {
    const fence = mod?.path.endsWith(".py") ? "python" : "ts";
    lines.push("```" + fence, `result = ${symbol}(${rng.int(1, 99)})`, "```", "");
  }
  return lines;
}

function sentence(rng: Random, count: number): string {
  return Array.from({ length: count }, () => rng.pick(WORDS)).join(" ");
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function readme(seed: number, lines: number): string {
  return [
    "# Synthetic corpus",
    "",
    `Generated by scripts/_synthetic_corpus.ts (seed ${seed}, about ${lines} lines).`,
    "",
  ].join("\n");
}

if (import.meta.main) {
  const [lines = "50000", seed = "1", root] = Deno.args;
  const corpus = generateSyntheticCorpus({ lines: Number(lines), seed: Number(seed), root });
  console.log(JSON.stringify(corpus, null, 2));
}
