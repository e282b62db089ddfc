/**
 * Lazy breadth-first traversal of the relation graph: each step loads only
 * the relations that touch the frontier (by target name or by enclosing
 * symbol) and the import bindings of their files, resolves them, and keeps
 * the edges that resolve to the node. Ambiguous edges stop their branch and
 * come back as candidates; every node is visited once, so cycles end.
 */
import { fileLocal, sameDefinition } from "./binding.ts";
import type { Resolver } from "./resolve.ts";
import {
  confidenceOf,
  type Evidence,
  EVIDENCE_LEVEL,
  type RelationRecord,
  type SymbolRecord,
} from "./types.ts";

/** A node of the graph: a definition, or a file for module-level code. */
export type GraphNode = SymbolRecord;

/** One resolved relation between two nodes. */
export interface GraphEdge {
  from: GraphNode;
  to: GraphNode;
  relation: RelationRecord;
  evidence: Evidence;
  note?: string;
}

/** A node reached by the traversal, with the chain of edges from a root. */
export interface Reached {
  node: GraphNode;
  edge: GraphEdge;
  depth: number;
  direction: "in" | "out";
  path: GraphEdge[];
  /** Further uses between the same two nodes: each site is kept, the node is listed once. */
  sites: GraphEdge[];
}

/** A use that may mean the node, or an outgoing use that may mean several definitions. */
export interface Ambiguity {
  relation: RelationRecord;
  from: GraphNode;
  reason: string;
  candidates: { symbol: SymbolRecord; reason: string }[];
  depth: number;
}

/** An outgoing use that names nothing in scope. */
export interface Unresolved {
  relation: RelationRecord;
  from: GraphNode;
  reason: string;
  external: boolean;
}

export interface TraversalResult {
  reached: Reached[];
  ambiguities: Ambiguity[];
  unresolved: Unresolved[];
  /** True when `limit` stopped the walk before the frontier was exhausted. */
  cut: boolean;
  expanded: number;
}

/** A pseudo-node for module-level code of a file. */
export function fileNode(
  relation: { repo: string; path: string; language: string | null },
): GraphNode {
  return {
    repo: relation.repo,
    path: relation.path,
    language: relation.language,
    id: `file:${relation.path}`,
    name: relation.path.split("/").pop() ?? relation.path,
    qualified: relation.path,
    kind: "module",
    startLine: 1,
    startCol: 1,
    endLine: 1,
    endCol: 1,
    signature: null,
    parentId: null,
    exported: false,
  };
}

export function nodeKey(node: GraphNode): string {
  return `${node.repo}\0${node.id}`;
}

/** Incoming relations of a node (`kinds`: null for every kind). */
export function inbound(
  resolver: Resolver,
  node: GraphNode,
  kinds: ReadonlySet<string> | null,
): { edges: GraphEdge[]; ambiguities: Omit<Ambiguity, "depth">[] } {
  const edges: GraphEdge[] = [];
  const ambiguities: Omit<Ambiguity, "depth">[] = [];
  if (node.kind === "module") return { edges, ambiguities };
  const store = resolver.store;
  // Repositories that can hold uses of the node: those whose scope includes its repository.
  const repos = store.usersOf(node.repo);
  // `new C()` is a use of C's constructor.
  const owner = node.name === "constructor" && node.parentId
    ? store.symbolById(node.repo, node.parentId)
    : null;
  // A use of the member a method overrides or implements may dispatch to it (approximate).
  const overridden = resolver.overridden(node);
  // A function's nested definition is resolved only from its own file: no other use is tried.
  const onlyIn = fileLocal(store, node) ? node.path : null;
  for (const repo of repos) {
    if (onlyIn !== null && repo !== node.repo) continue;
    const names = new Set([node.name]);
    // Classes whose construction runs this constructor: the owner, and its subclasses that
    // declare no constructor of their own (`new Sub()` runs the inherited one).
    const constructed: SymbolRecord[] = owner ? [owner] : [];
    if (owner) {
      names.add(owner.name);
      for (const relation of store.relationsTargeting(repo, [owner.name])) {
        if (relation.kind !== "inherits" || !relation.fromSymbol) continue;
        const resolution = resolver.resolve(relation);
        if (resolution.status !== "resolved" || !sameDefinition(resolution.symbol, owner)) continue;
        const sub = store.symbolById(relation.repo, relation.fromSymbol);
        if (!sub || store.childrenOf(sub).some((s) => s.name === node.name)) continue;
        constructed.push(sub);
        names.add(sub.name);
      }
    }
    for (const alias of store.aliasesOf(repo, node.name, true)) {
      if (alias.alias) names.add(alias.alias);
    }
    // A qualified name written whole (`_t.CertType` in an annotation, after
    // `from . import _types as _t`): the module's name or an alias of it, then the node's name.
    if (node.parentId === null) {
      const module = moduleName(node.path);
      const receivers = new Set([module]);
      for (const alias of store.aliasesOf(repo, module)) {
        if (alias.alias) receivers.add(alias.alias);
      }
      for (const receiver of receivers) names.add(`${receiver}.${node.name}`);
    }
    // What a use must resolve to for an edge: the node, a class whose construction runs it, a
    // member it overrides.
    const targets = [node, ...constructed, ...overridden];
    for (const relation of store.relationsTargeting(repo, [...names])) {
      if (kinds && !kinds.has(relation.kind)) continue;
      if (onlyIn !== null && relation.path !== onlyIn) continue;
      // Most uses of a common name are bound by their file's imports to another definition.
      if (!resolver.mayMean(relation, targets)) continue;
      const resolution = resolver.resolve(relation);
      const from = relation.fromSymbol
        ? store.symbolById(relation.repo, relation.fromSymbol) ?? fileNode(relation)
        : fileNode(relation);
      if (resolution.status === "resolved") {
        const constructs = relation.kind === "calls" &&
          constructed.some((c) => sameDefinition(resolution.symbol, c));
        if (sameDefinition(resolution.symbol, node) || constructs) {
          edges.push({
            from,
            to: node,
            relation,
            evidence: resolution.evidence,
            ...(resolution.note ? { note: resolution.note } : {}),
          });
        } else {
          const base = overridden.find((m) => sameDefinition(resolution.symbol, m));
          if (base) {
            edges.push({
              from,
              to: node,
              relation,
              evidence: "unique_name",
              note: `a use of '${base.qualified}', which this overrides: dynamic dispatch`,
            });
          }
        }
      } else if (resolution.status === "ambiguous") {
        if (
          resolution.candidates.some((c) => sameDefinition(c.symbol, node))
        ) {
          ambiguities.push({
            relation,
            from,
            reason: resolution.reason,
            candidates: resolution.candidates,
          });
        }
      }
    }
  }
  return { edges, ambiguities };
}

/** Outgoing relations of a node (`kinds`: null for every kind but imports). */
export function outbound(
  resolver: Resolver,
  node: GraphNode,
  kinds: ReadonlySet<string> | null,
): { edges: GraphEdge[]; ambiguities: Omit<Ambiguity, "depth">[]; unresolved: Unresolved[] } {
  const edges: GraphEdge[] = [];
  const ambiguities: Omit<Ambiguity, "depth">[] = [];
  const unresolved: Unresolved[] = [];
  if (node.kind === "module") return { edges, ambiguities, unresolved };
  for (const relation of resolver.store.relationsFrom(node)) {
    if (kinds ? !kinds.has(relation.kind) : relation.kind === "imports") continue;
    const resolution = resolver.resolve(relation);
    switch (resolution.status) {
      case "resolved":
        if (resolution.symbol.id === node.id && resolution.symbol.repo === node.repo) break;
        edges.push({
          from: node,
          to: resolution.symbol,
          relation,
          evidence: resolution.evidence,
          ...(resolution.note ? { note: resolution.note } : {}),
        });
        break;
      case "ambiguous":
        ambiguities.push({
          relation,
          from: node,
          reason: resolution.reason,
          candidates: resolution.candidates,
        });
        break;
      case "external":
        unresolved.push({ relation, from: node, reason: resolution.reason, external: true });
        break;
      case "unresolved":
        unresolved.push({ relation, from: node, reason: resolution.reason, external: false });
        break;
    }
  }
  return { edges, ambiguities, unresolved };
}

/** Breadth-first walk from roots, up to `depth` hops and `limit` reached nodes. */
export function traverse(
  resolver: Resolver,
  options: {
    roots: GraphNode[];
    direction: "in" | "out" | "both";
    kinds: ReadonlySet<string> | null;
    depth: number;
    limit: number;
    /** List a root's uses of itself (recursive calls) as hits: `references`. */
    selfUses?: boolean;
  },
): TraversalResult {
  const visited = new Set(options.roots.map(nodeKey));
  const reached: Reached[] = [];
  const ambiguities: Ambiguity[] = [];
  const unresolved: Unresolved[] = [];
  const pathTo = new Map<string, GraphEdge[]>(options.roots.map((r) => [nodeKey(r), []]));
  const byKey = new Map<string, Reached>();
  let frontier = [...options.roots];
  let cut = false;
  let expanded = 0;
  for (let depth = 1; depth <= options.depth && frontier.length > 0 && !cut; depth++) {
    const next: GraphNode[] = [];
    for (const node of frontier) {
      expanded++;
      const base = pathTo.get(nodeKey(node)) ?? [];
      const steps: { edge: GraphEdge; other: GraphNode; direction: "in" | "out" }[] = [];
      if (options.direction !== "out") {
        const found = inbound(resolver, node, options.kinds);
        for (const edge of found.edges) steps.push({ edge, other: edge.from, direction: "in" });
        for (const a of found.ambiguities) ambiguities.push({ ...a, depth });
      }
      if (options.direction !== "in") {
        const found = outbound(resolver, node, options.kinds);
        for (const edge of found.edges) steps.push({ edge, other: edge.to, direction: "out" });
        for (const a of found.ambiguities) ambiguities.push({ ...a, depth });
        unresolved.push(...found.unresolved);
      }
      steps.sort((a, b) =>
        EVIDENCE_LEVEL[a.edge.evidence] - EVIDENCE_LEVEL[b.edge.evidence] ||
        a.edge.relation.repo.localeCompare(b.edge.relation.repo) ||
        a.edge.relation.path.localeCompare(b.edge.relation.path) ||
        a.edge.relation.startLine - b.edge.relation.startLine
      );
      for (const step of steps) {
        const key = nodeKey(step.other);
        const path = [...base, step.edge];
        if (visited.has(key)) {
          // Another use of an already reached node (or a cycle): keep the site, never walk it again.
          const known = byKey.get(key);
          if (!known && options.selfUses && depth === 1) {
            // A root's use of itself (a recursive call) is one of its uses.
            const entry: Reached = {
              node: step.other,
              edge: step.edge,
              depth,
              direction: step.direction,
              path,
              sites: [],
            };
            byKey.set(key, entry);
            reached.push(entry);
            continue;
          }
          const sameEnds = known && nodeKey(known.edge.from) === nodeKey(step.edge.from) &&
            nodeKey(known.edge.to) === nodeKey(step.edge.to);
          if (known && sameEnds) known.sites.push(step.edge);
          continue;
        }
        visited.add(key);
        pathTo.set(key, path);
        const entry: Reached = {
          node: step.other,
          edge: step.edge,
          depth,
          direction: step.direction,
          path,
          sites: [],
        };
        byKey.set(key, entry);
        reached.push(entry);
        if (step.other.kind !== "module") next.push(step.other);
        if (reached.length >= options.limit) {
          cut = true;
          break;
        }
      }
      if (cut) break;
    }
    frontier = next;
  }
  return { reached, ambiguities, unresolved, cut, expanded };
}

/** Whether every edge on a path is proven. */
export function pathConfidence(path: GraphEdge[]): "exact" | "approximate" {
  return path.every((edge) => confidenceOf(edge.evidence) === "exact") ? "exact" : "approximate";
}

/** The name a file is imported by: its base name without extension (a package's directory). */
function moduleName(path: string): string {
  const parts = path.split("/");
  const base = parts[parts.length - 1].replace(/\.[^.]+$/, "");
  return (base === "__init__" || base === "index" || base === "mod") && parts.length > 1
    ? parts[parts.length - 2]
    : base;
}
