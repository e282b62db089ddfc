/** References → relation rows, each owned by the innermost definition enclosing its site. */
import type { RelationRow } from "./parse_types.ts";
import type { Reference } from "./extract_matches.ts";
import { type Definition, sameNode } from "./extract_names.ts";
import { clip } from "./extract_nodes.ts";

/**
 * The relation rows of a file's references (`definitions` in source order): a node captured as
 * a call, import or base class is not also a plain reference, two patterns on one node count
 * once, and a definition's own name is not a reference to it. At most `limit` rows; a cut is a
 * diagnostic.
 */
export function relationRows(
  references: readonly Reference[],
  definitions: readonly Definition[],
  limit: number,
): { rows: RelationRow[]; diagnostics: string[] } {
  const sorted = [...references].sort((a, b) => a.node.startIndex - b.node.startIndex);
  const stronger = new Set(
    sorted.filter((ref) => ref.kind !== "references").map((ref) =>
      `${ref.node.startIndex}:${ref.end}`
    ),
  );
  const rows: RelationRow[] = [];
  const seenReferences = new Set<string>();
  const owners = new OwnerWalk(definitions);
  for (const ref of sorted) {
    const at = ref.node.startIndex;
    const owner = owners.at(at);
    // A definition's own name is not a reference to it.
    if (ref.kind === "references" && owner && owner.nameNode.startIndex === at) continue;
    if (ref.kind === "references") {
      const key = `${ref.node.startIndex}:${ref.end}`;
      if (stronger.has(key)) continue;
      // Every site is kept (navigation needs them all); two patterns on one node count once.
      if (seenReferences.has(key)) continue;
      seenReferences.add(key);
    }
    if (rows.length >= limit) {
      return { rows, diagnostics: [`limit: kept the first ${limit} relations`] };
    }
    const endPosition = ref.node.endPosition;
    rows.push({
      kind: ref.kind,
      from_symbol: owner ? owner.id : null,
      target: clip(ref.name, 300),
      receiver: ref.receiver,
      module: ref.module,
      alias: ref.alias,
      start_line: ref.node.startPosition.row + 1,
      start_col: ref.node.startPosition.column + 1,
      end_line: endPosition.row + 1,
      end_col: endPosition.column + 1,
    });
  }
  return { rows, diagnostics: [] };
}

/** The innermost definition enclosing increasing offsets, walking definitions in source order. */
class OwnerWalk {
  readonly #definitions: readonly Definition[];
  readonly #stack: Definition[] = [];
  #next = 0;

  constructor(definitions: readonly Definition[]) {
    this.#definitions = definitions;
  }

  /** The owner of the site at `offset`; offsets must not decrease between calls. */
  at(offset: number): Definition | null {
    const stack = this.#stack;
    while (
      this.#next < this.#definitions.length &&
      this.#definitions[this.#next].node.startIndex <= offset
    ) {
      const def = this.#definitions[this.#next++];
      while (stack.length > 0 && stack[stack.length - 1].end <= def.node.startIndex) stack.pop();
      // Names declared together: references inside belong to the first of them.
      if (stack.length === 0 || !sameNode(stack[stack.length - 1], def)) stack.push(def);
    }
    while (stack.length > 0 && stack[stack.length - 1].end <= offset) stack.pop();
    return stack.length > 0 ? stack[stack.length - 1] : null;
  }
}
