/** A Mermaid flowchart of what a traversal found. Pure: values in, text out. */
import type { GraphNode, Reached } from "./traverse.ts";
import { nodeKey } from "./traverse.ts";
import { confidenceOf } from "./types.ts";

/** Renders roots and reached nodes as `graph LR`, one edge per relation (dotted when approximate). */
export function mermaidDiagram(roots: GraphNode[], reached: Reached[]): string {
  const ids = new Map<string, string>();
  const lines = ["graph LR"];
  const idOf = (node: GraphNode): string => {
    const key = nodeKey(node);
    let id = ids.get(key);
    if (!id) {
      id = `n${ids.size}`;
      ids.set(key, id);
      const label = [node.qualified, `${node.repo}:${node.path}:${node.startLine}`].map(escapeLabel)
        .join("<br/>");
      lines.push(`  ${id}["${label}"]`);
    }
    return id;
  };
  for (const root of roots) idOf(root);
  for (const root of roots) lines.push(`  style ${idOf(root)} stroke-width:3px`);
  const seen = new Set<string>();
  for (const entry of reached) {
    for (const edge of [entry.edge, ...entry.sites]) {
      const from = idOf(edge.from);
      const to = idOf(edge.to);
      const key = `${from}>${to}>${edge.relation.kind}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const arrow = confidenceOf(edge.evidence) === "exact" ? "-->" : "-.->";
      lines.push(`  ${from} ${arrow}|${edge.relation.kind}| ${to}`);
    }
  }
  return lines.join("\n");
}

function escapeLabel(text: string): string {
  return text.replace(/"/g, "#quot;").replace(/</g, "#lt;").replace(/>/g, "#gt;");
}
