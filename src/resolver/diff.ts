/**
 * Lines changed in a working tree against HEAD (`git diff --unified=0`), plus
 * untracked files. git runs with fsmonitor, external diff, textconv and filter
 * drivers off: nothing in the repository is executed.
 */
import { runGit, runGitOnWorkTree } from "../indexer/git.ts";

/** Changed line ranges (1-based, inclusive, new side) per path; `whole` for added files. */
export interface ChangedFile {
  path: string;
  ranges: { start: number; end: number }[];
  whole: boolean;
  deleted: boolean;
}

function text(out: Uint8Array | null): string | null {
  return out === null ? null : new TextDecoder().decode(out);
}

/** Uncommitted changes of a work tree vs HEAD, or null when it is not a git work tree with a HEAD. */
export async function uncommittedChanges(root: string): Promise<ChangedFile[] | null> {
  const diff = text(
    await runGitOnWorkTree(root, [
      "diff",
      "--no-ext-diff",
      "--no-textconv",
      "--no-color",
      "--unified=0",
      "--relative",
      "HEAD",
    ]),
  );
  if (diff === null) return null;
  const files = parseUnifiedDiff(diff);
  const untracked = text(await runGit(root, ["ls-files", "--others", "--exclude-standard", "-z"]));
  for (const path of (untracked ?? "").split("\0").filter(Boolean)) {
    files.push({ path, ranges: [], whole: true, deleted: false });
  }
  return files;
}

/** Parses `git diff --unified=0` output into changed new-side line ranges per file. */
export function parseUnifiedDiff(text: string): ChangedFile[] {
  const files: ChangedFile[] = [];
  let current: ChangedFile | null = null;
  let oldPath: string | null = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("--- ")) {
      oldPath = line === "--- /dev/null" ? null : line.slice(4).replace(/^a\//, "");
    } else if (line.startsWith("+++ ")) {
      const deleted = line === "+++ /dev/null";
      const path = deleted ? oldPath ?? "" : line.slice(4).replace(/^b\//, "");
      current = { path, ranges: [], whole: oldPath === null, deleted };
      files.push(current);
    } else if (line.startsWith("@@") && current) {
      const match = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!match) continue;
      const oldStart = Number(match[1]);
      const oldCount = match[2] === undefined ? 1 : Number(match[2]);
      const start = Number(match[3]);
      const count = match[4] === undefined ? 1 : Number(match[4]);
      if (current.deleted) {
        current.ranges.push({ start: oldStart, end: oldStart + Math.max(oldCount, 1) - 1 });
      } else if (count === 0) {
        // A pure deletion sits between two lines: both neighbours are touched.
        current.ranges.push({ start: Math.max(start, 1), end: start + 1 });
      } else {
        current.ranges.push({ start, end: start + count - 1 });
      }
    }
  }
  return files;
}
