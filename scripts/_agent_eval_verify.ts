/**
 * The verify eval's citations: taken from real answers (search hits, symbol
 * hits, callees of the gold functions), then corrupted the ways citations go
 * wrong — lines shifted past the cited definition, a symbol renamed, the quote
 * edited, a relation invented, and, in the working tree, a cited file deleted
 * and a quoted line edited before the index is refreshed. Each citation keeps
 * the label it was made with: clean ones must hold, corrupted ones must be
 * flagged.
 */
import { join } from "node:path";
import { runAction } from "../src/actions/dispatch.ts";
import { analyzeQuery } from "../src/engine/query.ts";
import type { ResultHit } from "../src/protocol/types.ts";
import type { Workspace } from "../src/workspace/workspace.ts";
import type { LocatedFunction } from "./_agent_eval_trees.ts";

export type Corruption =
  | "shifted_lines"
  | "nudged_lines"
  | "renamed_symbol"
  | "edited_quote"
  | "invented_relation"
  | "deleted_file"
  | "edited_file";

export interface LabelledCitation {
  citation: Record<string, unknown>;
  /** null: clean (must hold); else how it was corrupted (must be flagged). */
  corruption: Corruption | null;
  source: string;
}

/** A plan of citations for one row, plus the working-tree edits to apply before verifying. */
export interface VerifyPlan {
  citations: LabelledCitation[];
  deleted: string | null;
  edited: { path: string; line: number; before: string; after: string } | null;
}

const MUTATIONS: Corruption[] = [
  "shifted_lines",
  "renamed_symbol",
  "edited_quote",
  "nudged_lines",
];

/** Citations from real answers for one row, clean and corrupted. */
export async function planCitations(
  workspace: Workspace,
  tree: string,
  row: { query: string },
  gold: LocatedFunction[],
): Promise<VerifyPlan> {
  const clean: LabelledCitation[] = [];
  const textOf = (path: string) => Deno.readTextFileSync(join(tree, path));
  const search = await runAction(workspace, "search", { query: row.query, limit: 8 });
  for (const hit of search.results) {
    const quote = quoteOf(hit);
    if (!quote) continue;
    clean.push({
      citation: {
        path: hit.path,
        start_line: hit.start_line,
        end_line: hit.end_line,
        ...(hit.symbol ? { symbol: hit.symbol } : {}),
        text: quote,
      },
      corruption: null,
      source: "search",
    });
  }
  const identifiers = analyzeQuery(row.query).identifiers.slice(0, 6);
  for (const identifier of identifiers) {
    const found = await runAction(workspace, "symbols", { query: identifier, limit: 2 });
    for (const hit of found.results) {
      const lines = textOf(hit.path).split("\n");
      const first = lines[hit.start_line - 1] ?? "";
      if (!first.trim()) continue;
      clean.push({
        citation: {
          path: hit.path,
          start_line: hit.start_line,
          end_line: hit.end_line,
          symbol: hit.symbol,
          text: first.trim(),
        },
        corruption: null,
        source: "symbols",
      });
      // A few lines inside the definition, quoted: part of a definition is a good citation too.
      const inner = lines.slice(hit.start_line, hit.start_line + 3);
      if (hit.end_line - hit.start_line >= 4 && inner.some((line) => line.trim() !== "")) {
        clean.push({
          citation: {
            path: hit.path,
            start_line: hit.start_line + 1,
            end_line: hit.start_line + 3,
            symbol: hit.symbol,
            text: inner.join("\n"),
          },
          corruption: null,
          source: "symbols (part)",
        });
      }
    }
  }
  // Claims: what each gold function calls (the callees answer), and one call it does not make.
  const invented: LabelledCitation[] = [];
  for (const fn of gold) {
    if (!fn.lines) continue;
    const name = fn.name.split(".").pop()!;
    const callees = await runAction(workspace, "callees", { symbol: fn.name, path: fn.path });
    const body = textOf(fn.path).split("\n").slice(fn.lines[0] - 1, fn.lines[1]).join("\n");
    for (const hit of callees.results.slice(0, 3)) {
      const callee = String(hit.symbol ?? "").split(/\.|::/).pop();
      if (!callee) continue;
      clean.push({
        citation: {
          path: fn.path,
          start_line: fn.lines[0],
          end_line: fn.lines[1],
          claim: `${name} calls ${callee}`,
        },
        corruption: null,
        source: "callees",
      });
    }
    // A function defined elsewhere whose name the body never writes.
    const others = await runAction(workspace, "symbols", { query: name.slice(0, 3), limit: 40 });
    const stranger = others.results.map((hit) => String(hit.name ?? "")).find((other) =>
      other.length > 3 && other !== name && !new RegExp(`\\b${escape(other)}\\b`).test(body)
    );
    if (stranger) {
      invented.push({
        citation: {
          path: fn.path,
          start_line: fn.lines[0],
          end_line: fn.lines[1],
          claim: `${name} calls ${stranger}`,
        },
        corruption: "invented_relation",
        source: "callees",
      });
    }
  }
  const citations: LabelledCitation[] = [...clean, ...invented];
  clean.filter((c) => c.citation.claim === undefined).forEach((c, i) => {
    const mutated = mutate(c.citation, MUTATIONS[i % MUTATIONS.length], textOf);
    if (mutated) citations.push({ ...mutated, source: c.source });
  });

  // Working-tree staleness: one cited file deleted, one quoted line of another edited.
  const quoted = clean.filter((c) => typeof c.citation.text === "string" && !c.citation.claim);
  const paths = [...new Set(quoted.map((c) => String(c.citation.path)))];
  const deleted = paths.length >= 2 ? paths[paths.length - 1] : null;
  let edited: VerifyPlan["edited"] = null;
  for (const c of quoted) {
    const path = String(c.citation.path);
    if (path === deleted || edited) continue;
    const lines = textOf(path).split("\n");
    const start = Number(c.citation.start_line);
    const end = Number(c.citation.end_line);
    const quote = String(c.citation.text).split("\n").map((line) => line.trim());
    for (let n = start; n <= end && !edited; n++) {
      const line = lines[n - 1] ?? "";
      if (!quote.includes(line.trim()) || /^\s*(def|class|async def|function|@)/.test(line)) {
        continue;
      }
      const identifier = /[A-Za-z_][A-Za-z0-9_]{2,}/.exec(line);
      if (!identifier) continue;
      const after = line.slice(0, identifier.index) + `${identifier[0]}_edited` +
        line.slice(identifier.index + identifier[0].length);
      edited = { path, line: n, before: line, after };
    }
  }
  for (const labelled of citations) {
    const path = String(labelled.citation.path);
    if (labelled.corruption !== null) continue;
    if (path === deleted) labelled.corruption = "deleted_file";
    else if (edited && path === edited.path && quotesLine(labelled.citation, edited)) {
      labelled.corruption = "edited_file";
    }
  }
  // A corrupted copy in a deleted file is flagged either way; it stays labelled as made.
  return { citations, deleted, edited };
}

/** Applies a plan's working-tree edits (the caller refreshes the index after). */
export function applyEdits(tree: string, plan: VerifyPlan): void {
  if (plan.deleted) Deno.removeSync(join(tree, plan.deleted));
  if (plan.edited) {
    const file = join(tree, plan.edited.path);
    const lines = Deno.readTextFileSync(file).split("\n");
    lines[plan.edited.line - 1] = plan.edited.after;
    Deno.writeTextFileSync(file, lines.join("\n"));
  }
}

/** Whether a citation quotes the edited line within its range. */
function quotesLine(
  citation: Record<string, unknown>,
  edited: NonNullable<VerifyPlan["edited"]>,
): boolean {
  if (typeof citation.text !== "string") return false;
  const start = Number(citation.start_line ?? 1);
  const end = Number(citation.end_line ?? start);
  if (edited.line < start || edited.line > end) return false;
  return citation.text.split("\n").some((line) =>
    line.trim() !== "" && line.trim() === edited.before.trim()
  );
}

/** Two to four non-blank lines of a hit's snippet around its matching line, as quoted. */
function quoteOf(hit: ResultHit): string | null {
  const lines = hit.snippet.split("\n");
  const at = typeof hit.match_line === "number" ? hit.match_line - hit.start_line : 0;
  const picked = lines.slice(Math.max(0, at), at + 4).filter((line) => line.trim() !== "");
  return picked.length > 0 ? picked.slice(0, 3).join("\n") : null;
}

/** A corrupted copy of a clean citation, or null when this kind does not apply to it. */
function mutate(
  citation: Record<string, unknown>,
  kind: Corruption,
  textOf: (path: string) => string,
): Omit<LabelledCitation, "source"> | null {
  const start = Number(citation.start_line);
  const end = Number(citation.end_line);
  switch (kind) {
    case "shifted_lines": {
      // Past the cited lines entirely, down when the file has room, else up.
      const length = end - start + 1;
      const lineCount = textOf(String(citation.path)).split("\n").length;
      const shift = end + length + 5 <= lineCount ? length + 5 : -(length + 5);
      if (start + shift < 1) return null;
      return {
        citation: { ...citation, start_line: start + shift, end_line: end + shift },
        corruption: kind,
      };
    }
    case "renamed_symbol": {
      if (typeof citation.symbol !== "string") return null;
      const parts = citation.symbol.split(".");
      parts[parts.length - 1] = `${parts[parts.length - 1]}_renamed`;
      return { citation: { ...citation, symbol: parts.join(".") }, corruption: kind };
    }
    case "edited_quote": {
      if (typeof citation.text !== "string") return null;
      const identifier = /[A-Za-z_][A-Za-z0-9_]{2,}/.exec(citation.text);
      if (!identifier) return null;
      const text = citation.text.slice(0, identifier.index) + `${identifier[0]}Stale` +
        citation.text.slice(identifier.index + identifier[0].length);
      return { citation: { ...citation, text }, corruption: kind };
    }
    case "nudged_lines": {
      // Off by a few: the range starts just past the first quoted line, so the quote leaves it.
      if (typeof citation.text !== "string") return null;
      const lines = textOf(String(citation.path)).split("\n");
      const first = citation.text.split("\n").find((line) => line.trim() !== "")?.trim();
      if (!first) return null;
      let at = -1;
      for (let line = start; line <= end && at < 0; line++) {
        if ((lines[line - 1] ?? "").trim() === first) at = line;
      }
      if (at < 0) return null;
      const shift = at - start + 1;
      if (end + shift > lines.length) return null;
      return {
        citation: { ...citation, start_line: start + shift, end_line: end + shift },
        corruption: kind,
      };
    }
    default:
      return null;
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
