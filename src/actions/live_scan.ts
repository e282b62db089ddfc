import { codeTerms } from "../engine/tokenizer.ts";
import { readConfined } from "../indexer/confined.ts";
import { takeInventory } from "../indexer/inventory.ts";
import { DEFAULT_MAX_FILE_SIZE, loadSettings } from "../indexer/settings.ts";
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
 * What a live scan of a repository may read: the files a refresh would index,
 * judged by the inventory's own rules (git's ignore rules with
 * `.git/info/exclude`, or `.gitignore` files without git; default excludes;
 * secret names; `.code-index/settings.yml` include, exclude and size; symlinks
 * and hard links), in path order. `problem` when the settings cannot be read:
 * then nothing is read, since its excludes cannot be honoured.
 */
export type LiveListing = { paths: string[]; maxFileSize: number; problem: null } | {
  paths: null;
  problem: string;
};

/** The live-scan listing of a repository (one inventory; see `LiveListing`). */
export async function liveListing(repo: Repository): Promise<LiveListing> {
  let settings;
  try {
    settings = await loadSettings(repo.root);
  } catch (error) {
    return { paths: null, problem: (error as Error).message };
  }
  const inventory = await takeInventory(repo.root, settings);
  return {
    paths: inventory.files.map((file) => file.path),
    maxFileSize: Math.min(settings.maxFileSize, DEFAULT_MAX_FILE_SIZE),
    problem: null,
  };
}

/**
 * The text files of a listing, read directly from the working tree (the target
 * is missing or damaged), in path order, within `LIVE_SCAN_LIMITS`; binary,
 * non-UTF-8 and oversize files are skipped, and so is a path that has become
 * anything but a regular file with one link since it was listed. `bounded` is
 * set when a limit cut the scan.
 */
export function* liveFiles(
  repo: Repository,
  listing: { paths: string[]; maxFileSize: number },
  options: {
    pathFilter: ((path: string) => boolean) | null;
    from?: string;
    bounded?: { cut: boolean };
  },
): Generator<LiveFile> {
  let files = 0;
  let bytes = 0;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for (const path of listing.paths) {
    if (files >= LIVE_SCAN_LIMITS.files || bytes >= LIVE_SCAN_LIMITS.bytes) {
      if (options.bounded) options.bounded.cut = true;
      return;
    }
    if (options.from !== undefined && path < options.from) continue;
    if (options.pathFilter && !options.pathFilter(path)) continue;
    let text: string;
    try {
      // A regular file with one link, within the size limit, at its own path inside the root.
      const data = readConfined(repo.root, path, { maxBytes: listing.maxFileSize });
      if (data === null) continue;
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

/**
 * Searches the working tree directly when the target is missing or damaged
 * (so a search never waits for a rebuild): windows of lines scored by query-term
 * hits. Approximate by design.
 */
export function liveScan(
  repo: Repository,
  listing: { paths: string[]; maxFileSize: number },
  options: { terms: string[]; limit: number; pathFilter: ((path: string) => boolean) | null },
): LiveHit[] {
  const termSet = new Set(options.terms);
  const hits: LiveHit[] = [];
  for (const { path, text } of liveFiles(repo, listing, { pathFilter: options.pathFilter })) {
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
