/**
 * The overhead of Sextant's LSP router over a direct request to the same language server
 * (`scripts/_bench_lsp.ts` measures it; `deno task bench --lsp` reports the same figures).
 *
 *   deno run -A scripts/lsp_latency.ts [--repo DIR | --mirror psf+requests]
 *        [--language python|typescript] [--positions N] [--rounds N] [--json FILE]
 *
 * Default: a clone of /work/.mirror/psf+requests/repo in a temporary directory, pyright. The
 * committed snapshot is every tracked file's HEAD text held in memory, as the index's reader
 * serves it.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { LSP_BENCH_SERVERS, measureLspOverhead } from "./_bench_lsp.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    repo: { type: "string" },
    mirror: { type: "string", default: "psf+requests" },
    language: { type: "string", default: "python" },
    positions: { type: "string", default: "40" },
    rounds: { type: "string", default: "3" },
    json: { type: "string" },
  },
});

function git(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", { args, cwd, stdout: "piped", stderr: "piped" })
    .outputSync();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

let root = values.repo;
let cleanup: string | null = null;
if (!root) {
  cleanup = Deno.makeTempDirSync({ prefix: "sextant-lsp-latency-" });
  root = join(cleanup, "repo");
  git(cleanup, "clone", "-q", `/work/.mirror/${values.mirror}/repo`, root);
}
root = Deno.realPathSync(root);
const language = values.language!;
const files = LSP_BENCH_SERVERS[language]?.files;
if (!files) throw new RangeError(`no server to measure for ${language}`);

// The committed snapshot: HEAD text of every tracked file of the language, library code first.
const committed = new Map<string, string>();
const tracked = git(root, "ls-files", "-z").split("\0").filter((path) => files.test(path));
const library = tracked.filter((path) => !/(^|\/)(tests?|docs?|examples?)\//.test(path));
for (const path of library.length > 0 ? library : tracked) {
  committed.set(path, git(root, "show", `HEAD:${path}`));
}

const result = await measureLspOverhead({
  root,
  language,
  committed,
  positions: Number(values.positions),
  rounds: Number(values.rounds),
  log: (line) => console.error(line),
});
if (cleanup) Deno.removeSync(cleanup, { recursive: true });

const report = { repo: root, head: git(root, "rev-parse", "HEAD").trim(), ...result };
console.log(
  [
    "request",
    "direct p50",
    "direct p95",
    "routed p50",
    "routed p95",
    "overhead p50",
    "overhead p95",
  ]
    .join("\t"),
);
for (const method of ["definition", "references"] as const) {
  const row = result[method];
  console.log([
    method,
    row.direct_p50_ms,
    row.direct_p95_ms,
    row.routed_p50_ms,
    row.routed_p95_ms,
    row.overhead_p50_ms,
    row.overhead_p95_ms,
  ].join("\t"));
}
if (values.json) Deno.writeTextFileSync(values.json, JSON.stringify(report, null, 2) + "\n");
