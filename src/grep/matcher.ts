/**
 * Matching a compiled pattern against a parsed file (ast-grep's "smart"
 * strictness): every pattern node must be matched; unnamed tokens of the code
 * (commas, optional semicolons) may be skipped; `$$$` takes the fewest nodes
 * that let the next pattern node match.
 */
import type { Node, Tree } from "web-tree-sitter";
import type { GrepLanguage } from "./languages.ts";
import type { MetaVariable, PatternNode } from "./pattern.ts";

export type Binding =
  | { kind: "single"; node: Node }
  | { kind: "multi"; nodes: Node[] };

export type Bindings = Map<string, Binding>;

export interface Match {
  node: Node;
  bindings: Bindings;
}

const enum Outcome {
  Matched,
  SkipCandidate,
  NoMatch,
}

/** Whether `node` matches `pattern`; on success the bindings are added to `bindings`. */
export function matchNode(pattern: PatternNode, node: Node, bindings: Bindings): boolean {
  const trial = new Map(bindings);
  if (matchOne(pattern, node, trial) !== Outcome.Matched) return false;
  for (const [name, binding] of trial) bindings.set(name, binding);
  return true;
}

function matchOne(goal: PatternNode, candidate: Node, bindings: Bindings): Outcome {
  switch (goal.type) {
    case "terminal":
      // Unnamed tokens compare by kind (tree-sitter-typescript gives some of them wrong spans).
      if (goal.kindId === candidate.typeId && (!goal.named || goal.text === candidate.text)) {
        return Outcome.Matched;
      }
      return candidate.isNamed ? Outcome.NoMatch : Outcome.SkipCandidate;
    case "meta":
      return bindSingle(goal.meta, candidate, bindings) ? Outcome.Matched : Outcome.NoMatch;
    case "internal":
      if (goal.kindId !== candidate.typeId) return Outcome.NoMatch;
      if (goal.text !== undefined && goal.text !== candidate.text) return Outcome.NoMatch;
      return matchChildren(goal.children, codeChildren(candidate), bindings)
        ? Outcome.Matched
        : Outcome.NoMatch;
  }
}

/** A node's children without comments: like ast-grep, comments in the code never break a match. */
function codeChildren(node: Node): Node[] {
  const children = node.children as Node[];
  return children.some(isComment) ? children.filter((child) => !isComment(child)) : children;
}

function isComment(node: Node): boolean {
  return node.isNamed && node.type.includes("comment");
}

function bindSingle(meta: MetaVariable, candidate: Node, bindings: Bindings): boolean {
  switch (meta.kind) {
    case "dropped":
      return !meta.named || candidate.isNamed;
    case "capture": {
      if (meta.named && !candidate.isNamed) return false;
      const previous = bindings.get(meta.name);
      if (previous) {
        return previous.kind === "single" && sameTokens(previous.node, candidate);
      }
      bindings.set(meta.name, { kind: "single", node: candidate });
      return true;
    }
    case "ellipsis":
      return bindMulti(meta.name, [candidate], bindings);
  }
}

function bindMulti(name: string | null, nodes: Node[], bindings: Bindings): boolean {
  if (name === null) return true;
  const previous = bindings.get(name);
  if (previous) {
    if (previous.kind !== "multi" || previous.nodes.length !== nodes.length) return false;
    return previous.nodes.every((node, i) => sameTokens(node, nodes[i]));
  }
  bindings.set(name, { kind: "multi", nodes });
  return true;
}

/** Equal code: the same node, or the same kinds and token texts (whitespace and layout aside). */
export function sameTokens(a: Node, b: Node): boolean {
  if (a.id === b.id) return true;
  if ((a.isNamed && a.childCount === 0) || (b.isNamed && b.childCount === 0)) {
    return a.text === b.text;
  }
  if (a.typeId !== b.typeId || a.childCount !== b.childCount) return false;
  const left = a.children as Node[];
  const right = b.children as Node[];
  return left.every((child, i) => sameTokens(child, right[i]));
}

function ellipsisName(node: PatternNode | undefined): string | null | undefined {
  if (node?.type !== "meta" || node.meta.kind !== "ellipsis") return undefined;
  return node.meta.name;
}

function isTrivial(node: PatternNode): boolean {
  return node.type === "terminal" && !node.named;
}

/** Sibling lists; a port of ast-grep's `match_nodes_impl_recursive` in smart strictness. */
function matchChildren(goals: PatternNode[], candidates: Node[], bindings: Bindings): boolean {
  let g = 0;
  let c = 0;
  if (candidates.length === 0) return false;
  while (true) {
    if (g >= goals.length) return true;
    const ellipsis = ellipsisName(goals[g]);
    if (ellipsis !== undefined) {
      const taken: Node[] = [];
      g++;
      if (g >= goals.length) return bindMulti(ellipsis, candidates.slice(c), bindings);
      let skippedTokens = 0;
      while (isTrivial(goals[g])) {
        g++;
        skippedTokens++;
        if (g >= goals.length) {
          const rest = candidates.slice(c);
          return bindMulti(ellipsis, rest.slice(0, rest.length - skippedTokens), bindings);
        }
      }
      if (ellipsisName(goals[g]) !== undefined) {
        // Two ellipses in a row: the first takes one node.
        taken.push(candidates[c++]);
        if (c >= candidates.length) return false;
        if (!bindMulti(ellipsis, dropLast(taken, skippedTokens), bindings)) return false;
        continue;
      }
      while (true) {
        if (matchOne(goals[g], candidates[c], new Map(bindings)) === Outcome.Matched) {
          if (!bindMulti(ellipsis, dropLast(taken, skippedTokens), bindings)) return false;
          break;
        }
        taken.push(candidates[c++]);
        if (c >= candidates.length) return false;
      }
    }
    // One pattern node against the next candidates, skipping unnamed tokens of the code.
    let exhausted = false;
    while (true) {
      if (c >= candidates.length) {
        while (g < goals.length && ellipsisName(goals[g]) !== undefined) g++;
        if (g < goals.length) return false;
        exhausted = true;
        break;
      }
      const outcome = matchOne(goals[g], candidates[c], bindings);
      if (outcome === Outcome.Matched) break;
      if (outcome === Outcome.NoMatch) return false;
      c++;
    }
    if (exhausted) return true;
    g++;
    c++;
    // Smart strictness: trailing code after the last pattern node is allowed.
    if (g >= goals.length) return true;
    if (c >= candidates.length) return false;
  }
}

function dropLast(nodes: Node[], count: number): Node[] {
  return count === 0 ? nodes : nodes.slice(0, Math.max(0, nodes.length - count));
}

/** Whether a node lies in a comment, or in literal text (not in an interpolation inside it). */
export function insideLiteralText(node: Node, language: GrepLanguage): boolean {
  for (let current: Node | null = node; current; current = current.parent) {
    const kind = current.type;
    if (kind.includes("comment")) return true;
    if (language.codeInLiteralKinds.includes(kind)) return false;
    if (current !== node && language.literalKinds.includes(kind)) return true;
  }
  return false;
}

/** Options of one file's search. */
export interface FindOptions {
  language: GrepLanguage;
  /** Stop after this many matches. */
  limit: number;
  /** Checked between candidate nodes; true stops the walk. */
  shouldStop?: () => boolean;
  /**
   * The text the tree was parsed from: candidates are then found from the
   * places the pattern's first literal occurs (the nodes of the root kind
   * around each), not by visiting every node of the root kind.
   */
  text?: string;
  /**
   * With `text`: the parsed ranges, when no match can start at an occurrence
   * outside them (the nodes around such an occurrence span text the parse
   * left out): only occurrences inside them are looked at.
   */
  anchorRanges?: readonly { startIndex: number; endIndex: number }[];
}

/** Every node of a tree the pattern matches, in document order (nested matches included). */
export function findMatches(
  tree: Tree,
  pattern: { root: PatternNode; rootKind: string | null; literals: string[] },
  options: FindOptions,
): { matches: Match[]; stopped: boolean } {
  const matches: Match[] = [];
  let checked = 0;
  const consider = (node: Node): boolean => {
    if ((++checked & 255) === 0 && options.shouldStop?.()) return false;
    // Cheap before the walk: a match's text holds every literal token of the pattern.
    if (pattern.literals.length > 0) {
      const text = node.text;
      if (!pattern.literals.every((literal) => text.includes(literal))) return true;
    }
    const bindings: Bindings = new Map();
    if (matchNode(pattern.root, node, bindings) && !insideLiteralText(node, options.language)) {
      matches.push({ node, bindings });
      if (matches.length >= options.limit) return false;
    }
    return true;
  };
  if (pattern.rootKind !== null && pattern.literals.length > 0 && options.text !== undefined) {
    for (
      const node of anchoredCandidates(
        tree,
        pattern.rootKind,
        pattern.literals[0],
        options.text,
        options.anchorRanges,
      )
    ) {
      if (!consider(node)) return { matches, stopped: true };
    }
    return { matches, stopped: false };
  }
  if (pattern.rootKind !== null) {
    for (const node of tree.rootNode.descendantsOfType(pattern.rootKind)) {
      if (node && !consider(node)) return { matches, stopped: true };
    }
    return { matches, stopped: false };
  }
  const cursor = tree.walk();
  try {
    let more = true;
    while (more) {
      if (!consider(cursor.currentNode)) return { matches, stopped: true };
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) {
          more = false;
          break;
        }
      }
    }
  } finally {
    cursor.delete();
  }
  return { matches, stopped: false };
}

/**
 * The nodes of a kind whose text holds a literal, in document order (a node
 * before the nodes inside it), as `descendantsOfType` with that literal check
 * would give them: each such node spans an occurrence of the literal, so it is
 * the smallest node spanning one, or an ancestor of it.
 */
function anchoredCandidates(
  tree: Tree,
  kind: string,
  literal: string,
  text: string,
  ranges: readonly { startIndex: number; endIndex: number }[] | undefined,
): Node[] {
  const found: { node: Node; depth: number }[] = [];
  /** Depth of every node visited, by id: a walk up stops at the first one seen before. */
  const depths = new Map<number, number>();
  const root = tree.rootNode;
  const end = root.endIndex;
  let range = 0;
  for (
    let at = text.indexOf(literal, root.startIndex);
    at >= 0;
    at = text.indexOf(literal, at + 1)
  ) {
    if (at + literal.length > end) break;
    if (ranges) {
      while (range < ranges.length && ranges[range].endIndex <= at) range++;
      if (range >= ranges.length) break;
      if (ranges[range].startIndex > at) {
        at = ranges[range].startIndex - 1;
        continue;
      }
    }
    const chain: Node[] = [];
    let node: Node | null = root.descendantForIndex(at, at + literal.length);
    while (node && !depths.has(node.id)) {
      chain.push(node);
      node = node.parent;
    }
    let depth = node ? depths.get(node.id)! : 0;
    for (let i = chain.length - 1; i >= 0; i--) {
      const current = chain[i];
      depths.set(current.id, ++depth);
      if (current.type === kind) found.push({ node: current, depth });
    }
  }
  return found.sort((a, b) =>
    a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex ||
    a.depth - b.depth
  ).map((entry) => entry.node);
}
