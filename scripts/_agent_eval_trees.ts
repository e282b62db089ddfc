/**
 * Working trees for the agent-action eval: one shared clone per repository,
 * its rows visited in commit order (oldest first) so each refresh applies one
 * real diff, and gold functions located in the index.
 */
import { join } from "node:path";
import type { EvalRow } from "./_eval_run.ts";
import type { Workspace } from "../src/workspace/workspace.ts";

/** Runs git in a directory (fsmonitor off); throws with its stderr on failure. */
export function git(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", {
    args: ["-c", "core.fsmonitor=false", ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/**
 * A working tree of `source` (a git repository) at `tree`, cloned once and
 * kept; returns the rows ordered by their commit's time.
 */
export function prepareTree(source: string, tree: string, rows: EvalRow[]): EvalRow[] {
  let cloned = true;
  try {
    Deno.statSync(join(tree, ".git"));
  } catch {
    cloned = false;
  }
  if (!cloned) git(Deno.cwd(), "clone", "-q", "--shared", "--no-checkout", source, tree);
  const times = new Map<string, number>();
  for (const row of rows) {
    const commit = commitOf(row);
    if (commit && !times.has(commit)) {
      times.set(commit, Number(git(tree, "show", "-s", "--format=%ct", commit).trim()));
    }
  }
  return [...rows].sort((a, b) =>
    (times.get(commitOf(a) ?? "") ?? 0) - (times.get(commitOf(b) ?? "") ?? 0)
  );
}

/** The commit a row is asked at. */
export function commitOf(row: EvalRow): string | null {
  return row.base_commit ?? row.parent ?? (row as { commit?: string }).commit ?? null;
}

/** Checks a row's commit out, dropping any edit an earlier step made. */
export function checkout(tree: string, commit: string): void {
  git(tree, "checkout", "-q", "--detach", "--force", commit);
  git(tree, "clean", "-q", "-f", "-d");
}

/** A gold function (`path:Qualified.name`) located in the index: its lines, or null. */
export interface LocatedFunction {
  gold: string;
  path: string;
  name: string;
  lines: [number, number] | null;
}

export function locateGold(workspace: Workspace, functions: string[]): LocatedFunction[] {
  const repo = workspace.repositories[0];
  return functions.map((gold) => {
    const at = gold.indexOf(":");
    const path = gold.slice(0, at);
    const name = gold.slice(at + 1);
    const lines = workspace.withReader(repo, (reader) => {
      const found = reader.symbolsInFile(path).find((symbol) =>
        symbol.qualified === name || symbol.qualified.endsWith(`.${name}`)
      );
      return found ? [found.startLine, found.endLine] as [number, number] : null;
    }).value ?? null;
    return { gold, path, name, lines };
  });
}
