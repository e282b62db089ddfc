/**
 * `outline`: the tree repository → directory → file → definition, each node
 * with a one-line summary, to `depth` levels below `path`, in depth-first
 * order, paged and fitted to the token budget.
 *
 * Summaries are a definition's signature and the first sentence of its doc, a
 * file's module doc sentence (else what it defines), a directory's counts and
 * the doc sentence of its package file or README: no source text beyond
 * signatures and doc sentences, so agents in summary mode can live on it.
 * Hidden files are left out before anything is counted.
 */
import type { MethodParams } from "../protocol/methods.ts";
import type { Envelope, OutlineData, ResultHit } from "../protocol/types.ts";
import type { FileEntry, StoredSymbol } from "../store/reader.ts";
import { normaliseRequestPath, type Repository } from "../workspace/workspace.ts";
import type { RequestScope } from "../workspace/scope.ts";
import { envelope, repositoryStates } from "./envelope.ts";
import { isOffset, issueCursor, PageFitter, readCursor } from "./paging.ts";
import { definitionSummary, firstSentence, moduleDocSentence, signatureLine } from "./summaries.ts";

export type OutlineParams = MethodParams<"outline">;

const DEFAULT_DEPTH = 2;
/** Deeper than this, an outline is a file listing: clamped and told so. */
const MAX_DEPTH = 12;
const DEFAULT_LIMIT = 200;
/** Kinds an outline of a directory leaves out (an outline of one file lists them). */
const DETAIL_KINDS = new Set(["field", "variable", "property", "local"]);
/** Files whose doc sentence describes their directory. */
const PACKAGE_FILES = [
  "__init__.py",
  "index.ts",
  "index.js",
  "mod.ts",
  "mod.rs",
  "lib.rs",
  "doc.go",
  "package-info.java",
];
const README = /^readme(\.(md|rst|txt))?$/i;
/**
 * Lines of a file a summary reads at most: a README's first paragraph is looked for in them,
 * a module doc in the first 80 (`moduleDocSentence`).
 */
const HEAD_LINES = 200;

function headLines(path: string) {
  return { path, start: 1, end: HEAD_LINES };
}

/** A directory of visible files. */
interface Directory {
  name: string;
  path: string;
  dirs: Map<string, Directory>;
  files: FileEntry[];
  fileCount: number;
  definitions: number;
}

/** One node of the walk, before its summary is read. */
type Node =
  | { type: "repository"; repo: Repository; root: Directory; level: number }
  | { type: "directory"; repo: Repository; dir: Directory; level: number }
  | { type: "file"; repo: Repository; file: FileEntry; definitions: number; level: number }
  | { type: "symbol"; repo: Repository; file: FileEntry; symbol: StoredSymbol; level: number };

/** The outline of the addressed repositories, or of one directory or file in them. */
export function outline(scope: RequestScope, params: OutlineParams): Envelope<OutlineData> {
  const { workspace } = scope;
  const limitations: string[] = [];
  let depth = params.depth ?? DEFAULT_DEPTH;
  if (depth > MAX_DEPTH) {
    limitations.push(`depth ${depth} was clamped to ${MAX_DEPTH}`);
    depth = MAX_DEPTH;
  }
  const limit = params.limit ?? DEFAULT_LIMIT;
  const start = params.path === undefined ? "" : normaliseRequestPath(params.path)
    .replace(/\/+$/, "").replace(/^\.$/, "");
  const repos = scope.repositories;
  const states = repositoryStates(workspace, repos, scope);
  const binding = { action: "outline", params: { ...params }, repositories: states };
  const offset = params.cursor === undefined ? 0 : readCursor(params.cursor, binding, isOffset);

  const roots: Node[] = [];
  for (const repo of repos) {
    const answer = workspace.withReader(repo, (reader) => ({
      files: [...reader.fileTable().files.values()],
      definitions: reader.perFileCounts("symbols"),
    }));
    if (answer.problem) {
      limitations.push(`${repo.name}: no index to outline (target ${answer.problem})`);
      continue;
    }
    const files = answer.value.files.filter((file) =>
      scope.accepts(repo.name, file.path, file.language)
    );
    const tree = treeOf(files, answer.value.definitions);
    if (start === "") {
      roots.push({ type: "repository", repo, root: tree, level: 0 });
      continue;
    }
    const file = files.find((entry) => entry.path === start);
    if (file) {
      const definitions = answer.value.definitions.get(file.id) ?? 0;
      roots.push({ type: "file", repo, file, definitions, level: 0 });
      continue;
    }
    const dir = find(tree, start);
    if (dir) roots.push({ type: "directory", repo, dir, level: 0 });
  }
  if (start !== "" && roots.length === 0) {
    limitations.push(`no indexed file or directory '${start}' in scope`);
  }

  const symbolsOf = (repo: Repository, path: string): StoredSymbol[] =>
    workspace.withReader(repo, (reader) => reader.symbolsInFile(path)).value ?? [];
  // A summary reads no further than a file's first lines: only as much text is inflated.
  const headOf = (repo: Repository, path: string): string | null =>
    scope.allowPath(repo.name, path)
      ? workspace.withReader(repo, (reader) => reader.fileLines([headLines(path)], HEAD_LINES)[0])
        .value
      : null;

  function* walk(node: Node): Generator<Node> {
    yield node;
    if (node.level >= depth) return;
    const level = node.level + 1;
    if (node.type === "repository" || node.type === "directory") {
      const dir = node.type === "repository" ? node.root : node.dir;
      for (const child of sortedDirs(dir)) {
        yield* walk({ type: "directory", repo: node.repo, dir: collapse(child), level });
      }
      for (const file of dir.files) {
        yield* walk({
          type: "file",
          repo: node.repo,
          file,
          definitions: definitionsOf(node.repo, file),
          level,
        });
      }
      return;
    }
    const symbols = symbolsOf(node.repo, node.file.path);
    const detail = start === node.file.path;
    const kept = symbols.filter((s) => detail || !DETAIL_KINDS.has(s.kind));
    const parent = node.type === "file" ? null : node.symbol.id;
    for (const symbol of kept.filter((s) => s.parentId === parent)) {
      yield* walk({ type: "symbol", repo: node.repo, file: node.file, symbol, level });
    }
  }
  const definitionCounts = new Map<string, ReadonlyMap<number, number>>();
  function definitionsOf(repo: Repository, file: FileEntry): number {
    let counts = definitionCounts.get(repo.name);
    if (!counts) {
      counts = workspace.withReader(repo, (reader) => reader.perFileCounts("symbols")).value ??
        new Map();
      definitionCounts.set(repo.name, counts);
    }
    return counts.get(file.id) ?? 0;
  }

  const hitOf = (node: Node): ResultHit => summaryHit(node, { symbolsOf, headOf });
  const fitter = new PageFitter({ limit, tokenBudget: params.token_budget });
  let position = 0;
  let more = false;
  outer: for (const root of roots) {
    for (const node of walk(root)) {
      scope.throwIfCancelled();
      if (position++ < offset) continue;
      if (!fitter.open || !fitter.offer(hitOf(node))) {
        more = true;
        break outer;
      }
    }
  }
  const next = more ? offset + fitter.results.length : null;
  limitations.push(...fitter.limitations);
  return envelope({
    action: "outline",
    results: fitter.results,
    provenance: { backend: "symbol-index", confidence: "exact" },
    repositories: states,
    limitations,
    truncated: next !== null,
    nextCursor: next === null ? null : issueCursor(binding, next),
    data: { root: start || ".", depth, nodes: fitter.results.length },
  });
}

/** The summary hit of one node. */
function summaryHit(
  node: Node,
  read: {
    symbolsOf: (repo: Repository, path: string) => StoredSymbol[];
    /** A file's first `HEAD_LINES` lines (its whole text when it is no longer). */
    headOf: (repo: Repository, path: string) => string | null;
  },
): ResultHit {
  const base = { repo: node.repo.name, source_kind: "local" as const, score: 1, snippet: "" };
  switch (node.type) {
    case "repository":
    case "directory": {
      const dir = node.type === "repository" ? node.root : node.dir;
      const sentence = directorySentence(dir, (path) => read.headOf(node.repo, path));
      const counts = `${dir.fileCount} file(s), ${dir.definitions} definition(s)`;
      return {
        ...base,
        path: node.type === "repository" ? "." : `${dir.path}/`,
        start_line: 1,
        end_line: 1,
        symbol: null,
        kind: node.type,
        signature: null,
        language: null,
        level: node.level,
        summary: sentence ? `${counts} — ${sentence}` : counts,
        files: dir.fileCount,
        definitions: dir.definitions,
      };
    }
    case "file": {
      const text = read.headOf(node.repo, node.file.path);
      const sentence = text === null ? null : moduleDocSentence(text);
      let summary = sentence;
      if (!summary && node.definitions > 0) {
        const top = read.symbolsOf(node.repo, node.file.path).filter((s) =>
          s.parentId === null && !DETAIL_KINDS.has(s.kind)
        );
        const names = top.slice(0, 5).map((s) => s.name);
        summary = names.length > 0
          ? `defines ${names.join(", ")}${top.length > 5 ? ` and ${top.length - 5} more` : ""}`
          : `${node.definitions} definition(s)`;
      }
      return {
        ...base,
        path: node.file.path,
        start_line: 1,
        end_line: Math.max(1, node.file.lineCount),
        symbol: null,
        kind: "file",
        signature: null,
        language: node.file.language,
        level: node.level,
        summary: summary ?? `${node.file.lineCount} line(s)`,
        definitions: node.definitions,
      };
    }
    case "symbol": {
      const s = node.symbol;
      return {
        ...base,
        path: node.file.path,
        start_line: s.startLine,
        end_line: s.endLine,
        symbol: s.qualified,
        kind: s.kind,
        signature: signatureLine(s),
        language: node.file.language,
        level: node.level,
        summary: definitionSummary(s),
      };
    }
  }
}

/** The doc sentence of a directory's package file, else of its README. */
function directorySentence(dir: Directory, headOf: (path: string) => string | null): string | null {
  for (const name of PACKAGE_FILES) {
    const file = dir.files.find((entry) => entry.path.split("/").pop() === name);
    if (!file) continue;
    const text = headOf(file.path);
    const sentence = text === null ? null : moduleDocSentence(text);
    if (sentence) return sentence;
  }
  const readme = dir.files.find((entry) => README.test(entry.path.split("/").pop() ?? ""));
  const text = readme ? headOf(readme.path) : null;
  return text === null ? null : readmeSentence(text);
}

/** The first sentence of a README's first paragraph of prose. */
function readmeSentence(text: string): string | null {
  const paragraph: string[] = [];
  for (const line of text.split("\n", HEAD_LINES)) {
    const trimmed = line.trim();
    const prose = trimmed !== "" && !/^(#|=|-{3,}|\[|!\[|<|\||```|\.\. |:)/.test(trimmed);
    if (prose) paragraph.push(trimmed);
    else if (paragraph.length > 0) break;
  }
  return paragraph.length > 0 ? firstSentence(paragraph.join(" ")) : null;
}

/** The directory tree of a list of files, with counts. */
function treeOf(files: FileEntry[], definitions: ReadonlyMap<number, number>): Directory {
  const root: Directory = {
    name: "",
    path: "",
    dirs: new Map(),
    files: [],
    fileCount: 0,
    definitions: 0,
  };
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const parts = file.path.split("/");
    let dir = root;
    const count = definitions.get(file.id) ?? 0;
    dir.fileCount++;
    dir.definitions += count;
    for (const part of parts.slice(0, -1)) {
      let child = dir.dirs.get(part);
      if (!child) {
        child = {
          name: part,
          path: dir.path ? `${dir.path}/${part}` : part,
          dirs: new Map(),
          files: [],
          fileCount: 0,
          definitions: 0,
        };
        dir.dirs.set(part, child);
      }
      dir = child;
      dir.fileCount++;
      dir.definitions += count;
    }
    dir.files.push(file);
  }
  return root;
}

function find(root: Directory, path: string): Directory | null {
  let dir: Directory | undefined = root;
  for (const part of path.split("/")) {
    dir = dir?.dirs.get(part);
    if (!dir) return null;
  }
  return dir;
}

function sortedDirs(dir: Directory): Directory[] {
  return [...dir.dirs.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** A directory holding only one directory is shown as one node (`src/pkg`). */
function collapse(dir: Directory): Directory {
  let current = dir;
  while (current.files.length === 0 && current.dirs.size === 1) {
    current = [...current.dirs.values()][0];
  }
  return current;
}
