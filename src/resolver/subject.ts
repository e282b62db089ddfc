/**
 * What a navigation request is about: a symbol by name or qualified name, the
 * use at path + line + column, or a whole file. Unknown and invisible names
 * are answered alike: no roots, with the nearest visible names as suggestions.
 */
import type { Resolver, Site } from "./resolve.ts";
import {
  type Candidate,
  type Evidence,
  EVIDENCE_LEVEL,
  type RelationRecord,
  type SymbolRecord,
} from "./types.ts";
import { WireError } from "../protocol/errors.ts";
import { fileNode } from "./traverse.ts";

export interface Subject {
  roots: SymbolRecord[];
  candidates: Candidate[];
  suggestions: string[];
  limitations: string[];
  /** Repositories the subject was looked up in. */
  scopeRepos: string[];
  /** How the subject itself was found (for `definition`). */
  evidence?: Evidence;
  note?: string;
  ambiguity?: string;
  /** The use a position named. */
  use?: { repo: string; path: string; line: number; column: number; written: string };
  /** Files and definitions an uncommitted diff touches (impact --diff). */
  changed?: { repo: string; path: string; symbols: string[] }[];
}

const SEPARATORS = /\.|::|\//;

/** Finds the subject of a navigation request. */
export function findSubject(
  resolver: Resolver,
  request: {
    repos: string[];
    /**
     * Repositories a name is looked up in when the addressed ones do not define
     * it: their project siblings (the resolver scope is never narrowed by `repo`).
     */
    siblings?: string[];
    symbol?: string;
    path?: string;
    line?: number;
    column?: number;
    wholeFile: boolean;
  },
): Subject {
  const store = resolver.store;
  const siblings = (request.siblings ?? []).filter((repo) => !request.repos.includes(repo));
  const empty = (limitation: string, suggestions: string[] = []): Subject => ({
    roots: [],
    candidates: [],
    suggestions,
    limitations: [limitation],
    scopeRepos: request.repos,
  });
  if (request.path !== undefined) {
    const repos = request.repos.filter((repo) =>
      store.allowed(repo, request.path!) && store.paths(repo).has(request.path!)
    );
    if (repos.length === 0) return empty(`no indexed file '${request.path}' in scope`);
    const repo = repos[0];
    if (request.line === undefined) {
      if (request.symbol !== undefined) {
        return inFile(resolver, {
          repo,
          path: request.path,
          symbol: request.symbol.trim(),
          siblings: store.scopeOf(repo).filter((r) => r !== repo),
        });
      }
      return {
        roots: store.symbolsInFile(repo, request.path),
        candidates: [],
        suggestions: [],
        limitations: [],
        scopeRepos: [repo],
        evidence: "same_file",
      };
    }
    return atPosition(resolver, {
      repo,
      path: request.path,
      line: request.line,
      column: request.column,
      symbol: request.symbol?.trim(),
    });
  }
  if (request.symbol === undefined || request.symbol.trim() === "") {
    throw new WireError("InvalidParams", "navigation needs a non-empty 'symbol'");
  }
  return bySymbol(resolver, request.symbol.trim(), request.repos, siblings);
}

/**
 * A symbol named together with a file: its definitions in that file, else the
 * definitions its uses in that file resolve to, else the definitions by that
 * name in the file's resolver scope.
 */
function inFile(
  resolver: Resolver,
  at: { repo: string; path: string; symbol: string; siblings: string[] },
): Subject {
  const store = resolver.store;
  const defined = dedupe(
    store.symbolsInFile(at.repo, at.path).filter((s) => symbolMatches(s, at.symbol)),
  );
  const base = { suggestions: [], limitations: [], scopeRepos: [at.repo] };
  if (defined.length === 1) {
    return {
      ...base,
      roots: defined,
      candidates: [],
      evidence: "same_file",
      note: `defined in ${at.path}`,
    };
  }
  if (defined.length > 1) {
    return {
      ...base,
      roots: [],
      candidates: defined.map((s) => ({
        symbol: s,
        reason: `a ${s.kind} named '${s.name}' (${s.qualified}) in ${s.repo}:${s.path}`,
      })),
      ambiguity:
        `${defined.length} definitions are named '${at.symbol}' in ${at.path}: give a qualified name or 'line'`,
    };
  }
  // Used, not defined, in the file: what its uses there resolve to.
  const uses = store.relationsInFile(at.repo, at.path).filter((r) => writtenMatches(r, at.symbol));
  const resolved = new Map<string, { symbol: SymbolRecord; evidence: Evidence; note?: string }>();
  for (const use of uses) {
    const resolution = resolver.resolve(use);
    if (resolution.status !== "resolved") continue;
    if (!symbolMatches(resolution.symbol, at.symbol)) continue;
    const key = `${resolution.symbol.repo}\0${resolution.symbol.id}`;
    const seen = resolved.get(key);
    if (!seen || EVIDENCE_LEVEL[resolution.evidence] < EVIDENCE_LEVEL[seen.evidence]) {
      resolved.set(key, resolution);
    }
  }
  if (resolved.size === 1) {
    const [only] = resolved.values();
    return {
      ...base,
      roots: [only.symbol],
      candidates: [],
      evidence: only.evidence,
      note: `what '${at.symbol}' used in ${at.path} resolves to`,
      scopeRepos: [...new Set([at.repo, only.symbol.repo])],
    };
  }
  if (resolved.size > 1) {
    return {
      ...base,
      roots: [],
      candidates: [...resolved.values()].map((r) => ({
        symbol: r.symbol,
        reason:
          `'${at.symbol}' used in ${at.path} resolves to ${r.symbol.qualified} (${r.evidence})`,
      })),
      ambiguity:
        `uses of '${at.symbol}' in ${at.path} resolve to ${resolved.size} definitions: give 'line' and 'column'`,
    };
  }
  // Neither defined nor resolvably used there: the definitions by name in its scope.
  const found = bySymbol(resolver, at.symbol, [at.repo], at.siblings);
  const why = uses.length > 0
    ? `'${at.symbol}' is used in ${at.path} but its uses there do not resolve`
    : `'${at.symbol}' is neither defined nor used in ${at.path}`;
  return {
    ...found,
    note: found.roots.length > 0 ? `${why}; ${found.note ?? "found by name"}` : found.note,
    limitations: [
      ...found.limitations,
      ...(found.roots.length > 0 || found.candidates.length > 0
        ? [`${why}: answered by name over the resolver scope of ${at.repo}`]
        : []),
    ],
  };
}

/** Whether a definition is the one a name or qualified name means. */
function symbolMatches(symbol: SymbolRecord, wanted: string): boolean {
  if (!SEPARATORS.test(wanted)) return symbol.name === wanted;
  const last = wanted.split(SEPARATORS).pop();
  if (symbol.name !== last) return false;
  return symbol.qualified === wanted ||
    [".", "::", "/"].some((sep) => symbol.qualified.endsWith(`${sep}${wanted}`));
}

/** Whether a use is written with the name of `wanted` (its last segment). */
function writtenMatches(relation: RelationRecord, wanted: string): boolean {
  const last = wanted.split(SEPARATORS).pop();
  const name = relation.kind === "imports"
    ? relation.alias ?? relation.target.split(/\.|::/).pop()
    : relation.target.split(/\.|::/).pop();
  return name === last;
}

function bySymbol(
  resolver: Resolver,
  symbol: string,
  repos: string[],
  siblings: string[] = [],
): Subject {
  const store = resolver.store;
  const qualified = SEPARATORS.test(symbol);
  const lookup = (where: string[]) => {
    let found = qualified
      ? store.symbolsQualified(where, symbol)
      : store.symbolsNamed(where, symbol);
    if (qualified) {
      const exact = found.filter((s) => s.qualified === symbol);
      if (exact.length > 0) found = exact;
    }
    return dedupe(found);
  };
  let distinct = lookup(repos);
  let searched = repos;
  let fromSiblings = false;
  // Not defined in the addressed repositories: their project siblings are in scope too.
  if (distinct.length === 0 && siblings.length > 0) {
    distinct = lookup(siblings);
    searched = [...repos, ...siblings];
    fromSiblings = distinct.length > 0;
  }
  const base = { suggestions: [], limitations: [], scopeRepos: searched };
  const where = fromSiblings ? ` (in project sibling ${distinct[0].repo})` : "";
  if (distinct.length === 1) {
    return {
      ...base,
      roots: distinct,
      candidates: [],
      evidence: qualified ? "module_path" : "unique_name",
      note: qualified
        ? `found by qualified name${where}`
        : `found by name: the only definition with this name in scope${where}`,
    };
  }
  if (distinct.length > 1) {
    return {
      ...base,
      roots: [],
      candidates: distinct.map((s) => ({
        symbol: s,
        reason: `a ${s.kind} named '${s.name}' (${s.qualified}) in ${s.repo}:${s.path}`,
      })),
      ambiguity:
        `${distinct.length} definitions are named '${symbol}' in scope: give a qualified name, 'repo' or 'path'`,
    };
  }
  return {
    ...base,
    roots: [],
    candidates: [],
    suggestions: suggest(resolver, symbol, searched),
    limitations: [`no definition named '${symbol}' in scope`],
  };
}

function atPosition(
  resolver: Resolver,
  at: { repo: string; path: string; line: number; column?: number; symbol?: string },
): Subject {
  const store = resolver.store;
  const symbols = store.symbolsInFile(at.repo, at.path);
  const enclosing =
    symbols.filter((s) => s.startLine <= at.line && s.endLine >= at.line).sort((a, b) =>
      (a.endLine - a.startLine) - (b.endLine - b.startLine)
    )[0] ?? null;
  const base = { suggestions: [], limitations: [], scopeRepos: [at.repo] };
  const text = store.fileText(at.repo, at.path) ?? "";
  const relations = store.relationsInFile(at.repo, at.path);
  let relation = relationAt(relations, text, at.line, at.column);
  // On a definition's own name: that definition.
  const onName = symbols.find((s) => {
    const position = definitionNamePosition(text, s);
    return position && position.line === at.line &&
      (at.column === undefined ||
        (at.column >= position.column && at.column < position.column + s.name.length));
  });
  if (at.symbol !== undefined) {
    const wanted = at.symbol;
    // The position and the symbol agree: answer exactly as the position alone would.
    if (relation && !writtenMatches(relation, wanted)) {
      relation = at.column === undefined ? null : relation;
    }
    if (!relation && at.column === undefined) {
      relation = relations.find((r) =>
        r.startLine <= at.line && r.endLine >= at.line && writtenMatches(r, wanted)
      ) ?? null;
    }
    if (relation && writtenMatches(relation, wanted)) {
      const answer = fromRelation(resolver, at, relation, symbols, base);
      if (answer.roots.length > 0 || answer.candidates.length > 0) return answer;
    }
    const named = symbols.find((s) =>
      s.startLine === at.line && symbolMatches(s, wanted) &&
      definitionNamePosition(text, s)?.line === at.line
    ) ?? (onName && symbolMatches(onName, wanted) ? onName : undefined);
    if (named) {
      return {
        ...base,
        roots: [named],
        candidates: [],
        evidence: "same_file",
        note: "the position is the definition itself",
      };
    }
    const site: Site = {
      repo: at.repo,
      path: at.path,
      language: enclosing?.language ?? symbols[0]?.language ?? null,
      from: enclosing,
      line: at.line,
    };
    const binding = resolver.bindName(site, wanted);
    if (binding.kind === "symbol") {
      return {
        ...base,
        roots: [binding.symbol],
        candidates: [],
        evidence: binding.evidence,
        note: binding.note,
      };
    }
    if (binding.kind === "ambiguous") {
      return { ...base, roots: [], candidates: binding.candidates, ambiguity: binding.reason };
    }
    return {
      ...base,
      roots: [],
      candidates: [],
      limitations: [
        `'${wanted}' at ${at.path}:${at.line} resolves to nothing: ${
          "reason" in binding ? binding.reason : "a module"
        }`,
      ],
    };
  }
  if (onName && (!relation || at.column !== undefined)) {
    return {
      ...base,
      roots: [onName],
      candidates: [],
      evidence: "same_file",
      note: "the position is the definition itself",
    };
  }
  if (!relation) {
    return {
      ...base,
      roots: [],
      candidates: [],
      limitations: [
        `no use or definition at ${at.path}:${at.line}${at.column ? `:${at.column}` : ""}`,
      ],
    };
  }
  return fromRelation(resolver, at, relation, symbols, base);
}

/** The subject a use names: what the relation at the position resolves to. */
function fromRelation(
  resolver: Resolver,
  at: { repo: string; path: string },
  relation: RelationRecord,
  symbols: SymbolRecord[],
  base: { suggestions: string[]; limitations: string[]; scopeRepos: string[] },
): Subject {
  const use = {
    repo: at.repo,
    path: at.path,
    line: relation.startLine,
    column: relation.startCol,
    written: relation.receiver ? `${relation.receiver}.${relation.target}` : relation.target,
  };
  const resolution = resolver.resolve(relation);
  switch (resolution.status) {
    case "resolved":
      return {
        ...base,
        roots: [resolution.symbol],
        candidates: [],
        evidence: resolution.evidence,
        note: resolution.note,
        use,
      };
    case "ambiguous":
      return {
        ...base,
        roots: [],
        candidates: resolution.candidates,
        ambiguity: resolution.reason,
        use,
      };
    default:
      if (resolution.status === "unresolved" && resolution.moduleFile) {
        const file = resolution.moduleFile;
        const language = symbols[0]?.language ?? null;
        return {
          ...base,
          roots: [fileNode({ ...file, language })],
          candidates: [],
          evidence: file.evidence,
          note: "the use names a module: its file",
          use,
        };
      }
      return {
        ...base,
        roots: [],
        candidates: [],
        use,
        limitations: [
          `'${use.written}' at ${at.path}:${relation.startLine} resolves to nothing in scope: ${resolution.reason}`,
        ],
      };
  }
}

/** The relation whose written name covers a position (the tightest one when several do). */
export function relationAt(
  relations: RelationRecord[],
  text: string,
  line: number,
  column?: number,
): RelationRecord | null {
  let best: { relation: RelationRecord; size: number } | null = null;
  for (const relation of relations) {
    if (relation.startLine > line || relation.endLine < line) continue;
    const name = namePosition(text, relation);
    let size: number;
    if (column === undefined) {
      size = name && name.line === line ? 0 : 1_000;
    } else if (
      name && name.line === line && column >= name.column && column < name.column + name.length
    ) {
      size = name.length;
    } else continue;
    if (!best || size < best.size) best = { relation, size };
  }
  return best?.relation ?? null;
}

/** Line and column (1-based) of the written name of a relation, from the committed text. */
export function namePosition(
  text: string,
  relation: RelationRecord,
): { line: number; column: number; length: number } | null {
  const lines = text.split("\n", relation.endLine);
  const name = relation.kind === "imports"
    ? relation.alias ?? relation.target
    : relation.target.split(/\.|::/).pop()!;
  const skip = relation.kind !== "imports" && relation.receiver ? relation.receiver.length : 0;
  for (let l = relation.startLine; l <= relation.endLine && l <= lines.length; l++) {
    const lineText = lines[l - 1];
    let from = l === relation.startLine ? relation.startCol - 1 + skip : 0;
    while (from <= lineText.length) {
      const index = lineText.indexOf(name, from);
      if (index < 0) break;
      const before = lineText[index - 1] ?? " ";
      const after = lineText[index + name.length] ?? " ";
      if (!/[\w$]/.test(before) && !/[\w$]/.test(after)) {
        return { line: l, column: index + 1, length: name.length };
      }
      from = index + 1;
    }
  }
  return null;
}

/** Line and column of a definition's name. */
export function definitionNamePosition(
  text: string,
  symbol: SymbolRecord,
): { line: number; column: number } | null {
  const lines = text.split("\n", symbol.endLine);
  for (
    let l = symbol.startLine;
    l <= Math.min(symbol.endLine, symbol.startLine + 5, lines.length);
    l++
  ) {
    const lineText = lines[l - 1];
    let from = l === symbol.startLine ? symbol.startCol - 1 : 0;
    while (from <= lineText.length) {
      const index = lineText.indexOf(symbol.name, from);
      if (index < 0) break;
      const before = lineText[index - 1] ?? " ";
      const after = lineText[index + symbol.name.length] ?? " ";
      if (!/[\w$]/.test(before) && !/[\w$]/.test(after)) return { line: l, column: index + 1 };
      from = index + 1;
    }
  }
  return null;
}

function dedupe(symbols: SymbolRecord[]): SymbolRecord[] {
  const distinct = new Map<string, SymbolRecord>();
  for (const s of symbols) {
    const key = `${s.repo}\0${s.path}\0${s.qualified}\0${s.kind}`;
    const seen = distinct.get(key);
    if (!seen || s.endLine - s.startLine > seen.endLine - seen.startLine) distinct.set(key, s);
  }
  return [...distinct.values()];
}

/** The nearest visible names: same first letters, ranked by edit distance. */
function suggest(resolver: Resolver, symbol: string, repos: string[]): string[] {
  const name = symbol.split(SEPARATORS).pop() ?? symbol;
  const pool = new Map<string, number>();
  for (const length of [3, 2, 1]) {
    if (name.length < length) continue;
    for (const s of resolver.store.namesLike(repos, name.slice(0, length), 200)) {
      if (!pool.has(s.name)) {
        pool.set(s.name, editDistance(name.toLowerCase(), s.name.toLowerCase()));
      }
    }
    if (pool.size >= 5) break;
  }
  return [...pool.entries()].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
    .filter(([, distance]) => distance <= Math.max(3, Math.floor(name.length / 2)))
    .slice(0, 5).map(([n]) => n);
}

/** Levenshtein distance. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}
