/**
 * A missing or damaged target (real process, through the embedded CLI): search
 * and grep answer from the working tree, labelled as a fallback; the rebuild an
 * exiting process abandons never leaves an empty target that claims `ready`.
 */
import nodeAssert from "node:assert/strict";
import type { Envelope, StatusData } from "../src/protocol/types.ts";
import { fixtureRepository, runCli, tempCache } from "./_helpers.ts";

const assert = (condition: unknown, message?: string) => nodeAssert.ok(condition, message);
const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  nodeAssert.deepStrictEqual(actual, expected, message);

const FILES = {
  "src/retry.ts": `export function retryWithBackoff(attempts: number): number {
  return attempts * 2;
}
`,
  "src/main.ts": `import { retryWithBackoff } from "./retry";

export function run(): number {
  return retryWithBackoff(3);
}
`,
  "README.md": "# demo\n",
};

async function query(root: string, cache: string, args: string[]): Promise<Envelope> {
  const out = await runCli([
    "query",
    "--embedded",
    "--json",
    "--workspace",
    root,
    "--cache-dir",
    cache,
    ...args,
  ]);
  try {
    return JSON.parse(out.stdout) as Envelope;
  } catch {
    throw new Error(`not JSON (exit ${out.code}): ${out.stdout}\n${out.stderr}`);
  }
}

function targetFile(cache: string): string {
  for (const entry of Deno.readDirSync(`${cache}/repos`)) {
    return `${cache}/repos/${entry.name}/code-context.sqlite3`;
  }
  throw new Error("no target");
}

const damage: Record<string, (path: string) => void> = {
  deleted: (path) => {
    for (const suffix of ["", "-wal", "-shm"]) {
      try {
        Deno.removeSync(path + suffix);
      } catch { /* absent */ }
    }
  },
  corrupt: (path) => {
    for (const suffix of ["-wal", "-shm"]) {
      try {
        Deno.removeSync(path + suffix);
      } catch { /* absent */ }
    }
    Deno.writeFileSync(path, new TextEncoder().encode("SQLite format 3\0" + "garbage".repeat(600)));
  },
};

for (const [how, spoil] of Object.entries(damage)) {
  Deno.test(`a ${how} target: live-scan answers, never an empty target served as ready (real process)`, async () => {
    const root = fixtureRepository(FILES);
    const cache = tempCache();
    const indexed = await query(root, cache, ["search", "retryWithBackoff"]);
    assertEquals(indexed.results[0]?.path, "src/retry.ts");
    spoil(targetFile(cache));

    // The first answer comes from the working tree; its rebuild is abandoned when the process exits.
    const first = await query(root, cache, ["search", "retryWithBackoff", "--no-refresh"]);
    assert(first.results.some((h) => h.path === "src/retry.ts"));
    assertEquals(first.provenance.fallback_used, true);

    const status = await query(root, cache, ["status"]);
    const state = (status.data as StatusData).repositories[0].state;
    assert(state !== "ready", `an uncommitted target is reported ${state}`);

    // Later answers without refresh still say they are a fallback, and still find the file.
    const later = await query(root, cache, ["search", "retryWithBackoff", "--no-refresh"]);
    assert(later.results.some((h) => h.path === "src/retry.ts"), JSON.stringify(later.results));
    assertEquals(later.provenance.fresh, false);
    assertEquals(later.provenance.fallback_used, true);

    const grep = await query(root, cache, [
      "grep",
      "retryWithBackoff($N)",
      "--language",
      "typescript",
      "--no-refresh",
    ]);
    assertEquals(grep.results.map((h) => `${h.path}:${h.start_line}`), ["src/main.ts:4"]);
    assertEquals(grep.provenance.confidence, "approximate");
    assertEquals(grep.provenance.fallback_used, true);
    assertEquals(grep.provenance.fresh, false);
    assert(/target (missing|building|corrupt)/.test(grep.provenance.fallback_reason ?? ""));

    // The next refreshing caller finishes the build: ready, exact, from the index.
    const refreshed = await query(root, cache, [
      "grep",
      "retryWithBackoff($N)",
      "--language",
      "typescript",
    ]);
    assertEquals(refreshed.results.map((h) => `${h.path}:${h.start_line}`), ["src/main.ts:4"]);
    assertEquals(refreshed.provenance.confidence, "exact");
    assertEquals(refreshed.provenance.fallback_used, false);
    const after = await query(root, cache, ["status"]);
    const repo = (after.data as StatusData).repositories[0];
    assertEquals(repo.state, "ready");
    assert(repo.files >= 2);
  });
}

Deno.test("grep on a missing target infers the language from the working tree (real process)", async () => {
  const root = fixtureRepository(FILES);
  const answer = await query(root, tempCache(), ["grep", "retryWithBackoff($N)", "--no-refresh"]);
  assertEquals(answer.results.map((h) => `${h.path}:${h.start_line}`), ["src/main.ts:4"]);
  assertEquals(answer.provenance.confidence, "approximate");
  assertEquals(answer.provenance.fallback_used, true);
  assert((answer.provenance.fallback_reason ?? "").includes("target missing"));
});
