import assert from "node:assert/strict";
import { fixtureRepository, runCli, tempCache } from "./_helpers.ts";

const FILES = {
  "src/retry.py":
    'def retry_with_backoff(call, attempts=3):\n    """Retry a call with exponential backoff."""\n    return call()\n',
  "src/config.ts": "export function parseConfig(path: string): string {\n  return path;\n}\n",
  "README.md": "# Demo\n\nHow retry backoff works.\n",
};

Deno.test("CLI (real process): search prints path:line: text and exits 0", async () => {
  const root = fixtureRepository(FILES);
  const env = { SEXTANT_CACHE_DIR: tempCache() };
  const out = await runCli(["query", "search", "retry backoff", "--limit", "5"], {
    cwd: root,
    env,
  });
  assert.equal(out.code, 0, out.stderr);
  const lines = out.stdout.trim().split("\n");
  assert.match(lines[0], /^src\/retry\.py:\d+: /);
  assert.ok(lines.every((line) => /^[^:]+:\d+: /.test(line)), out.stdout);
  assert.ok(!out.stderr.includes("indexing"), "no progress on a pipe");
});

Deno.test("CLI (real process): nothing found exits 1, bad usage exits 2", async () => {
  const root = fixtureRepository(FILES);
  const env = { SEXTANT_CACHE_DIR: tempCache() };
  const none = await runCli(["query", "symbols", "noSuchSymbolAnywhere"], { cwd: root, env });
  assert.equal(none.code, 1);
  assert.equal(none.stdout.trim(), "");
  const usage = await runCli(["query", "search"], { cwd: root, env });
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /needs an argument/);
  const badLimit = await runCli(["query", "search", "x", "--limit", "many"], { cwd: root, env });
  assert.equal(badLimit.code, 2);
  const missing = await runCli(["query", "--workspace", "/no/such/dir", "status"], { env });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /does not exist/);
});

Deno.test("CLI (real process): --json prints the envelope", async () => {
  const root = fixtureRepository(FILES);
  const env = { SEXTANT_CACHE_DIR: tempCache() };
  const out = await runCli(["query", "--json", "symbols", "parseConfig"], { cwd: root, env });
  assert.equal(out.code, 0, out.stderr);
  const envelope = JSON.parse(out.stdout);
  for (
    const field of [
      "results",
      "provenance",
      "repositories",
      "limitations",
      "truncated",
      "next_cursor",
      "trace_id",
    ]
  ) {
    assert.ok(field in envelope, `envelope has ${field}`);
  }
  const hit = envelope.results[0];
  assert.equal(hit.path, "src/config.ts");
  assert.equal(hit.start_line, 1);
  assert.equal(hit.kind, "function");
  assert.equal(hit.symbol, "src/config.parseConfig");
  assert.equal(hit.language, "typescript");
  assert.equal(envelope.provenance.backend, "symbol-index");
  assert.equal(envelope.provenance.confidence, "exact");
  assert.equal(envelope.repositories[0].generation, 1);
  assert.match(envelope.repositories[0].head, /^[0-9a-f]{40}$/);

  const search = JSON.parse(
    (await runCli(["query", "--json", "search", "exponential backoff"], { cwd: root, env })).stdout,
  );
  assert.equal(search.results[0].path, "src/retry.py");
  assert.match(search.results[0].snippet, /def retry_with_backoff/);
  assert.ok(["reliable", "candidate", "weak"].includes(search.provenance.confidence));

  const error = await runCli(["query", "--json", "search", "x", "--strategy", "psychic"], {
    cwd: root,
    env,
  });
  assert.equal(error.code, 2);
  assert.equal(JSON.parse(error.stdout).error.code, -32602);
});

Deno.test("CLI (real process): status and refresh report generation and counts", async () => {
  const root = fixtureRepository(FILES);
  const env = { SEXTANT_CACHE_DIR: tempCache() };
  const refresh = await runCli(["query", "refresh"], { cwd: root, env });
  assert.equal(refresh.code, 0, refresh.stderr);
  assert.match(refresh.stdout, /generation 1 \(changed\); add 3/);
  const again = await runCli(["query", "refresh"], { cwd: root, env });
  assert.match(again.stdout, /generation 1 \(unchanged\); .*unchanged 3/);
  const status = await runCli(["query", "status"], { cwd: root, env });
  assert.equal(status.code, 0);
  assert.match(status.stdout, /files 3 /);
  assert.match(status.stdout, /languages .*python 1/);
});

/**
 * One try of the kill test on `count` files: a refresh killed once the writer has started
 * writing the new generation into the WAL. Returns false (and asserts nothing) when the refresh
 * finished before the kill landed, which a loaded machine can make happen; the caller then tries
 * again with more files.
 */
async function killMidCommit(count: number): Promise<boolean> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    files[`pkg/m${i}.py`] = `def old_function_${i}(x):\n    return x + ${i}\n`.repeat(20);
  }
  const root = fixtureRepository(files);
  const env = { SEXTANT_CACHE_DIR: tempCache() };
  const first = await runCli(["query", "--json", "refresh"], { cwd: root, env });
  assert.equal(first.code, 0, first.stderr);
  const databasePath = JSON.parse(
    (await runCli(["query", "--json", "status"], { cwd: root, env })).stdout,
  ).data.repositories[0].target;
  for (let i = 0; i < count; i++) {
    Deno.writeTextFileSync(
      `${root}/pkg/m${i}.py`,
      `def new_function_${i}(x):\n    return x - ${i}\n`,
    );
  }
  // The WAL is named after the target file the stable path links to.
  const targetFile = Deno.realPathSync(databasePath);
  const walSize = () => {
    try {
      return Deno.statSync(`${targetFile}-wal`).size;
    } catch {
      return 0;
    }
  };
  const before = walSize();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-worker-options",
      "-A",
      new URL("../src/main.ts", import.meta.url).pathname,
      "query",
      "refresh",
    ],
    cwd: root,
    env,
    stdout: "null",
    stderr: "null",
  }).spawn();
  // Kill once the writer has started writing the new generation into the WAL.
  const deadline = Date.now() + 60_000;
  while (walSize() <= before + 64 * 1024 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  try {
    child.kill("SIGKILL");
  } catch {
    // The process had already exited.
  }
  const ended = await child.status;
  if (ended.signal !== "SIGKILL") return false;
  const status = JSON.parse(
    (await runCli(["query", "--json", "status"], { cwd: root, env })).stdout,
  );
  if (status.data.repositories[0].generation !== 1) {
    // Killed after the commit, before the process could exit: nothing mid-commit to check.
    return false;
  }
  assert.equal(status.data.repositories[0].state, "ready");
  const old = await runCli(["query", "--json", "--no-refresh", "symbols", "old_function_7"], {
    cwd: root,
    env,
  });
  const hasName = (out: { stdout: string }, name: string) =>
    JSON.parse(out.stdout).results.some((hit: { name: string }) => hit.name === name);
  assert.ok(hasName(old, "old_function_7"), "the last generation still serves");
  const fresh = await runCli(["query", "--json", "--no-refresh", "symbols", "new_function_7"], {
    cwd: root,
    env,
  });
  assert.ok(!hasName(fresh, "new_function_7"), "nothing of the killed refresh is visible");
  const recovered = await runCli(["query", "--json", "refresh"], { cwd: root, env });
  assert.equal(JSON.parse(recovered.stdout).data.reports[0].generation, 2);
  return true;
}

Deno.test("CLI (real process): a refresh killed with SIGKILL mid-commit leaves the last generation", async () => {
  let killed = false;
  for (const count of [1500, 3000, 6000]) {
    killed = await killMidCommit(count);
    if (killed) break;
  }
  assert.ok(killed, "no try killed the refresh before it committed");
});

Deno.test("CLI (real process): grep and navigation take their subject positionally or by flags", async () => {
  const root = fixtureRepository({
    "app.py":
      "def helper(x):\n    return x + 1\n\ndef main():\n    print(helper(2))\n    # print(helper(3))\n",
  });
  const env = { SEXTANT_CACHE_DIR: tempCache() };
  const opts = { cwd: root, env };
  const grep = await runCli(["query", "--embedded", "grep", "print($A)", "--json"], opts);
  assert.equal(grep.code, 0, grep.stderr);
  const hits = JSON.parse(grep.stdout).results;
  assert.deepEqual(hits.map((h: { start_line: number }) => h.start_line), [5]);
  const callers = await runCli(["query", "--embedded", "callers", "helper"], opts);
  assert.equal(callers.code, 0, callers.stderr);
  assert.match(callers.stdout, /^app\.py:5: /);
  const definition = await runCli(
    ["query", "--embedded", "definition", "--path", "app.py", "--line", "5", "--column", "11"],
    opts,
  );
  assert.equal(definition.code, 0, definition.stderr);
  assert.match(definition.stdout, /^app\.py:1: def helper/);
  const badDepth = await runCli(["query", "--embedded", "callers", "helper", "--depth", "x"], opts);
  assert.equal(badDepth.code, 2);
  assert.match(badDepth.stderr, /--depth must be a whole number/);
});
