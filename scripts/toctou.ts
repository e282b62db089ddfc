/**
 * The TOCTOU harness: can a parse Worker be made to read outside its
 * repository by swapping a directory of the repository for a symlink while
 * files are read?
 *
 * A real git repository holds `src/pkg/f<i>.ts`; outside it, `outside/pkg/`
 * holds files of the same names with other content (each outside file has a
 * known hash and the word `zanzibarOutside`). `src/pkg_swap` is a symlink to
 * the outside directory. A helper process exchanges `src/pkg` and
 * `src/pkg_swap` in a tight loop (renameat2 RENAME_EXCHANGE through Python's
 * ctypes: at every instant `src/pkg` is either the directory or the symlink),
 * while this process
 * - parses `src/pkg/f<i>.ts` in a `ParsePool` (the product's Workers, the
 *   product's read), counting replies whose bytes hash to an outside file;
 * - refreshes the repository through the `refresh` action and, after each,
 *   searches for `zanzibarOutside` (an outside file that became searchable);
 * - reads the same files on this thread with `readConfined` (the read the live
 *   scan, the settings, `.gitignore` files and manifests go through), and, for
 *   comparison, the way the live scan read before (`lstat`, then read the path).
 *
 *   deno run --unstable-worker-options --allow-all scripts/toctou.ts [--parses 12000]
 *     [--refreshes 20] [--thread-reads 12000] [--files 64]
 */
import { join } from "node:path";
import { sha256Hex } from "../src/engine/hash.ts";
import { loadLanguageTable } from "../src/indexer/languages.ts";
import { ParsePool } from "../src/indexer/pool.ts";
import { readConfined } from "../src/indexer/confined.ts";
import type { ParseReply } from "../src/indexer/parse_types.ts";
import { runAction } from "../src/actions/dispatch.ts";
import { Workspace } from "../src/workspace/workspace.ts";

export interface ToctouOptions {
  /** Parses to run in the pool while the swap loop runs. */
  parses: number;
  /** Refreshes (each followed by a search for the outside word) while the swap loop runs. */
  refreshes: number;
  /** Reads on this thread with `readConfined` (and as many checked-then-read) while it runs. */
  threadReads?: number;
  /** Files in the swapped directory. */
  files?: number;
  /** Parses in flight at once. */
  concurrency?: number;
  log?: (line: string) => void;
}

export interface ToctouReport {
  /** Pool parses run while the swap loop ran. */
  parses: number;
  /** Of those, replies holding an inside file's bytes. */
  inside: number;
  /** Of those, replies holding an outside file's bytes: reads outside the root. */
  outside: number;
  /** Replies refused, by skip reason (a read that met the symlink and was refused). */
  refused: Record<string, number>;
  /** Replies that failed or held bytes of neither side. */
  other: number;
  /** Refreshes run, files they parsed, and outside files found searchable after any of them. */
  refreshes: number;
  refreshParsed: number;
  outsideSearchable: number;
  /** Reads on this thread through `readConfined`, and those that returned outside bytes. */
  confinedReads: number;
  confinedOutside: number;
  /** The same reads made the old way (lstat, then read the path): outside bytes returned. */
  checkedThenReadOutside: number;
  /** Exchanges the helper made. */
  swaps: number;
  ms: number;
}

const SWAPPER = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b, stop = (os.fsencode(x) for x in sys.argv[1:4])
RENAME_EXCHANGE, AT_FDCWD = 2, -100
try:
    renameat2 = libc.renameat2
    exchange = lambda: renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
except AttributeError:
    exchange = lambda: libc.syscall(316, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
swaps = 0
while True:
    if exchange() != 0:
        sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
    swaps += 1
    if swaps % 256 == 0 and os.path.exists(stop):
        break
if os.path.islink(a):
    exchange()
    swaps += 1
print(swaps)
`;

/** Builds the repository and the outside directory; returns their paths and the content hashes. */
function setup(files: number) {
  const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "sextant-toctou-" }));
  const repo = join(base, "repo");
  const outside = join(base, "outside", "pkg");
  Deno.mkdirSync(join(repo, "src", "pkg"), { recursive: true });
  Deno.mkdirSync(outside, { recursive: true });
  const insideHashes = new Set<string>();
  const outsideHashes = new Set<string>();
  const encoder = new TextEncoder();
  for (let i = 0; i < files; i++) {
    const mine = `export function inside${i}(x: number): number {\n  return x + ${i};\n}\n`;
    const theirs = `export const zanzibarOutside${i} = "a file outside the repository";\n`;
    Deno.writeTextFileSync(join(repo, "src", "pkg", `f${i}.ts`), mine);
    Deno.writeTextFileSync(join(outside, `f${i}.ts`), theirs);
    insideHashes.add(sha256Hex(encoder.encode(mine)));
    outsideHashes.add(sha256Hex(encoder.encode(theirs)));
  }
  Deno.writeTextFileSync(join(repo, "src", "main.ts"), "export const main = 1;\n");
  const git = (...args: string[]) =>
    new Deno.Command("git", { args, cwd: repo, stdout: "null", stderr: "null" }).outputSync();
  git("init", "-q");
  git("add", "-A");
  git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "fixture");
  Deno.symlinkSync(outside, join(repo, "src", "pkg_swap"));
  return { base, repo, insideHashes, outsideHashes };
}

/** Runs the race; the swap loop runs from the first parse to the last refresh. */
export async function raceParses(options: ToctouOptions): Promise<ToctouReport> {
  const files = options.files ?? 64;
  const concurrency = options.concurrency ?? 16;
  const log = options.log ?? (() => {});
  const { base, repo, insideHashes, outsideHashes } = setup(files);
  const stop = join(base, "stop");
  const swapper = new Deno.Command("python3", {
    args: ["-c", SWAPPER, join(repo, "src", "pkg"), join(repo, "src", "pkg_swap"), stop],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const started = performance.now();
  const report: ToctouReport = {
    parses: 0,
    inside: 0,
    outside: 0,
    refused: {},
    other: 0,
    refreshes: 0,
    refreshParsed: 0,
    outsideSearchable: 0,
    confinedReads: 0,
    confinedOutside: 0,
    checkedThenReadOutside: 0,
    swaps: 0,
    ms: 0,
  };
  const classify = (reply: ParseReply) => {
    if (reply.status === "parsed" || reply.status === "unchanged") {
      if (outsideHashes.has(reply.hash)) report.outside++;
      else if (insideHashes.has(reply.hash)) report.inside++;
      else report.other++;
    } else if (reply.status === "skipped") {
      report.refused[reply.reason] = (report.refused[reply.reason] ?? 0) + 1;
    } else {
      report.other++;
    }
  };
  const pool = new ParsePool({ root: repo, table: loadLanguageTable(), size: 2 });
  const workspace = await Workspace.open({
    directory: repo,
    cacheDirectory: join(base, "cache"),
  });
  let swapped: Deno.CommandOutput | null = null;
  try {
    let next = 0;
    const lane = async () => {
      while (next < options.parses) {
        const id = next++;
        const reply = await pool.parse({
          id,
          root: repo,
          path: `src/pkg/f${id % files}.ts`,
          language: "typescript",
          knownHash: null,
          maxFileSize: 1 << 20,
          packageRoot: null,
        });
        report.parses++;
        classify(reply);
        if (report.parses % 2000 === 0) log(`${report.parses} parses, ${report.outside} outside`);
      }
    };
    const refreshLane = async () => {
      for (let i = 0; i < options.refreshes; i++) {
        const refresh = await runAction(workspace, "refresh", {});
        const reports = (refresh.data as { reports: { parsed: number }[] }).reports;
        report.refreshParsed += reports.reduce((sum, entry) => sum + entry.parsed, 0);
        report.refreshes++;
        // Search ranks by meaning too: only a hit whose text holds the outside word counts.
        const found = await runAction(workspace, "search", { query: "zanzibarOutside" });
        const hits = new Set(
          found.results.filter((hit) =>
            /zanzibarOutside/.test((hit as { snippet: string }).snippet)
          )
            .map((hit) => (hit as { path: string }).path),
        );
        const grepped = await runAction(workspace, "grep", { pattern: "zanzibarOutside" });
        for (const hit of grepped.results) hits.add((hit as { path: string }).path);
        report.outsideSearchable = Math.max(report.outsideSearchable, hits.size);
      }
    };
    const threadLane = async () => {
      for (let i = 0; i < (options.threadReads ?? 0); i++) {
        const path = `src/pkg/f${i % files}.ts`;
        const bytes = readConfined(repo, path, { maxBytes: 1 << 20 });
        report.confinedReads++;
        if (bytes && outsideHashes.has(sha256Hex(bytes))) report.confinedOutside++;
        try {
          if (Deno.lstatSync(join(repo, path)).isFile) {
            const old = Deno.readFileSync(join(repo, path));
            if (outsideHashes.has(sha256Hex(old))) report.checkedThenReadOutside++;
          }
        } catch {
          // gone for an instant
        }
        if (i % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
      }
    };
    await Promise.all([
      ...Array.from({ length: concurrency }, lane),
      refreshLane(),
      threadLane(),
    ]);
  } finally {
    Deno.writeTextFileSync(stop, "");
    swapped = await swapper.output();
    pool.close();
    workspace.close();
    Deno.removeSync(base, { recursive: true });
  }
  if (!swapped.success) {
    throw new Error(`the swap helper failed: ${new TextDecoder().decode(swapped.stderr)}`);
  }
  report.swaps = Number(new TextDecoder().decode(swapped.stdout).trim()) || 0;
  report.ms = Math.round(performance.now() - started);
  return report;
}

if (import.meta.main) {
  const flag = (name: string, fallback: number) => {
    const index = Deno.args.indexOf(`--${name}`);
    return index >= 0 ? Number(Deno.args[index + 1]) : fallback;
  };
  const report = await raceParses({
    parses: flag("parses", 12_000),
    refreshes: flag("refreshes", 20),
    threadReads: flag("thread-reads", 12_000),
    files: flag("files", 64),
    log: (line) => console.error(line),
  });
  console.log(JSON.stringify(report, null, 2));
}
