import { join } from "node:path";
import { codeTerms } from "../engine/tokenizer.ts";
import { DEFAULT_EXCLUDES, isSecretName, walkHonouringGitignore } from "../indexer/inventory.ts";
import { DEFAULT_MAX_FILE_SIZE } from "../indexer/settings.ts";
import type { Repository } from "../workspace/workspace.ts";

/** Bounds of the fallback scan: it answers quickly rather than completely. */
export const LIVE_SCAN_LIMITS = { files: 5000, bytes: 32 * 1024 * 1024 };
const WINDOW = 20;

/** A ranked search candidate, from the FTS index or from a live scan. */
export interface SearchCandidate {
  repo: Repository;
  chunkId: number;
  path: string;
  language: string | null;
  startLine: number;
  endLine: number;
  kind: string;
  symbolPath: string | null;
  score: number;
  /** Share of the query terms present, for the confidence label. */
  matchedShare: number;
}

export interface LiveHit {
  text: string;
  candidate: SearchCandidate;
}

/** One working-tree file read by a live scan. */
export interface LiveFile {
  path: string;
  text: string;
}

/**
 * The text files of a repository's working tree, read directly (the target is
 * missing or damaged), in path order, within `LIVE_SCAN_LIMITS`: the walk
 * honours `.gitignore`, default excludes and secret names, skips binary,
 * non-UTF-8 and oversize files and symlinks. `bounded` is set when a limit cut it.
 */
export function* liveFiles(
  repo: Repository,
  options: {
    pathFilter: ((path: string) => boolean) | null;
    from?: string;
    bounded?: { cut: boolean };
  },
): Generator<LiveFile> {
  let files = 0;
  let bytes = 0;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for (const path of walkHonouringGitignore(repo.root).sort()) {
    if (files >= LIVE_SCAN_LIMITS.files || bytes >= LIVE_SCAN_LIMITS.bytes) {
      if (options.bounded) options.bounded.cut = true;
      return;
    }
    if (options.from !== undefined && path < options.from) continue;
    const segments = path.split("/");
    if (segments.some((s) => DEFAULT_EXCLUDES.has(s)) || isSecretName(segments.at(-1)!)) continue;
    if (options.pathFilter && !options.pathFilter(path)) continue;
    let text: string;
    try {
      const info = Deno.lstatSync(join(repo.root, path));
      if (!info.isFile || info.size > DEFAULT_MAX_FILE_SIZE) continue;
      const data = Deno.readFileSync(join(repo.root, path));
      if (data.subarray(0, 8192).includes(0)) continue;
      text = decoder.decode(data);
      files++;
      bytes += data.length;
    } catch {
      continue;
    }
    yield { path, text };
  }
}

/** The paths a live scan would read (no file is opened), for choosing a language. */
export function livePaths(repo: Repository): string[] {
  return walkHonouringGitignore(repo.root).filter((path) => {
    const segments = path.split("/");
    return !segments.some((s) => DEFAULT_EXCLUDES.has(s)) && !isSecretName(segments.at(-1)!);
  }).slice(0, LIVE_SCAN_LIMITS.files);
}

/**
 * Searches the working tree directly when the target is missing or damaged
 * (so a search never waits for a rebuild): windows of lines scored by query-term
 * hits. Approximate by design.
 */
export function liveScan(
  repo: Repository,
  options: { terms: string[]; limit: number; pathFilter: ((path: string) => boolean) | null },
): LiveHit[] {
  const termSet = new Set(options.terms);
  const hits: LiveHit[] = [];
  for (const { path, text } of liveFiles(repo, { pathFilter: options.pathFilter })) {
    const lines = text.split("\n");
    for (let start = 0; start < lines.length; start += WINDOW) {
      const window = lines.slice(start, start + WINDOW).join("\n");
      const found = new Set(codeTerms(window).filter((term) => termSet.has(term)));
      if (found.size === 0) continue;
      hits.push({
        text,
        candidate: {
          repo,
          chunkId: -1,
          path,
          language: null,
          startLine: start + 1,
          endLine: Math.min(lines.length, start + WINDOW),
          kind: "text",
          symbolPath: null,
          score: found.size,
          matchedShare: found.size / Math.max(1, termSet.size),
        },
      });
    }
  }
  return hits.sort((a, b) => b.candidate.score - a.candidate.score).slice(0, options.limit * 3);
}
