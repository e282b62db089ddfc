// Answers are untyped JSON.
// deno-lint-ignore-file no-explicit-any
/**
 * Issue 16, items 10-13: the target's lifecycle under crashes, rebuilds and concurrent writers,
 * through real processes (the CLI, the daemon on its socket), real files and a real SIGKILL.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { DaemonClient } from "../src/daemon/client.ts";
import { fixtureRepository, PROJECT_ROOT, runCli, startDaemon, tempCache } from "./_helpers.ts";

/** A repository big enough that a build takes seconds (many parse replies to write). */
function bigRepository(files: number): string {
  const tree: Record<string, string> = {};
  for (let i = 0; i < files; i++) {
    tree[`pkg/m${i}.py`] = `def old_function_${i}(x):\n    return x + ${i}\n`.repeat(20);
  }
  return fixtureRepository(tree);
}

/** The CLI as a child process (answering in its own process: `--embedded`). */
function spawnCli(args: string[], cwd: string, env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-worker-options",
      "-A",
      join(PROJECT_ROOT, "src/main.ts"),
      "query",
      "--embedded",
      ...args,
    ],
    cwd,
    env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function cliJson(args: string[], cwd: string, env: Record<string, string>): Promise<any> {
  const out = await runCli(["query", "--embedded", "--json", ...args], { cwd, env });
  assert.equal(out.code, 0, out.stderr);
  return JSON.parse(out.stdout);
}

/** True once a file under `directory` (at any depth) was written at or after `since`. */
function writtenSince(directory: string, since: number): boolean {
  try {
    for (const entry of Deno.readDirSync(directory)) {
      const path = join(directory, entry.name);
      if (entry.isDirectory) {
        if (writtenSince(path, since)) return true;
        continue;
      }
      try {
        const info = Deno.lstatSync(path);
        if (entry.name !== "writer.lock" && (info.mtime?.getTime() ?? 0) >= since) return true;
      } catch { /* gone */ }
    }
  } catch { /* no directory */ }
  return false;
}

/**
 * Kills a build mid-parse: once it has created its database, 1.5 s later (a build of
 * this many files takes several seconds), with SIGKILL; fails if it had finished.
 */
async function killMidBuild(child: Deno.ChildProcess, directory: string, since: number) {
  await waitFor(
    "the build to start writing",
    () => Promise.resolve(writtenSince(directory, since) ? true : null),
  );
  await new Promise((resolve) => setTimeout(resolve, 1500));
  child.kill("SIGKILL");
  const status = await child.status;
  await child.stdout.cancel();
  await child.stderr.cancel();
  assert.equal(status.signal, "SIGKILL", "the build finished before it was killed");
}

/** The target's `created_at` (its identity: a replacement is a new target). */
function createdAt(databasePath: string): string {
  const db = new DatabaseSync(databasePath, { readOnly: true });
  try {
    return (db.prepare("SELECT value FROM meta WHERE key = 'created_at'").get() as any).value;
  } finally {
    db.close();
  }
}

function jsonEvents(stderr: string, name: string): any[] {
  return stderr.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))
    .filter((event) => event.event === name);
}

async function waitFor<T>(what: string, probe: () => Promise<T | null>, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test("item 10 (real SIGKILL): a crash during rebuild keeps the last good generation served as ready; the daemon then repairs it", async () => {
  const root = bigRepository(1500);
  const cache = tempCache();
  const env = { SEXTANT_CACHE_DIR: cache };
  const first = await cliJson(["refresh"], root, env);
  const good = first.data.reports[0].generation;
  const status0 = await cliJson(["status"], root, env);
  const databasePath = status0.data.repositories[0].target;
  const directory = join(databasePath, "..");
  const identity = createdAt(databasePath);

  // A rebuild in another process, killed mid-build (once it has written a quarter megabyte).
  await new Promise((resolve) => setTimeout(resolve, 1100)); // mtimes tell after from before
  const started = Date.now() - 50;
  const child = spawnCli(["rebuild"], root, env);
  await killMidBuild(child, directory, started);

  // The last good generation is served, as ready, from the index.
  const after = await cliJson(["--no-refresh", "status"], root, env);
  const repo = after.data.repositories[0];
  assert.equal(repo.state, "ready", JSON.stringify(repo));
  assert.equal(repo.generation, good);
  assert.equal(repo.files, 1500);
  const served = await cliJson(["--no-refresh", "symbols", "old_function_7"], root, env);
  assert.equal(served.provenance.fallback_used, false, JSON.stringify(served.provenance));
  assert.ok(served.results.some((hit: any) => hit.name === "old_function_7"));
  assert.equal(createdAt(databasePath), identity, "the old target is still the one linked");

  // Then repaired: the daemon sees the abandoned replacement and builds it again, beside.
  const daemon = await startDaemon({ workspace: root, cache, args: ["--log-format", "json"] });
  const client = await DaemonClient.connect(daemon.socket);
  const t0 = performance.now();
  try {
    const firstAnswer = await client.request("symbols", { query: "old_function_7" }) as any;
    assert.equal(firstAnswer.provenance.fallback_used, false);
    assert.equal(firstAnswer.repositories[0].generation, good);
    const repaired = await waitFor("the repair", async () => {
      const status = await client.request("status", {}) as any;
      const state = status.data.repositories[0];
      // Served all along: never a half-built target, never a fallback.
      assert.equal(state.state, "ready");
      return state.generation > good ? state : null;
    });
    const repairMs = Math.round(performance.now() - t0);
    assert.notEqual(createdAt(databasePath), identity, "a new target replaced the old one");
    const leftovers = [...Deno.readDirSync(directory)].filter((e) => /building/.test(e.name));
    assert.deepEqual(leftovers, []);
    // The trace is written when the refresh Worker's report reaches the daemon's thread, which
    // may follow the swap that status already sees.
    const interruptedRepairs = () =>
      jsonEvents(daemon.stderr(), "refresh").filter((e) => e.trigger === "repair: interrupted");
    await waitFor(
      "the repair's trace",
      () => Promise.resolve(interruptedRepairs().length > 0 ? true : null),
      10_000,
    );
    const repairs = interruptedRepairs();
    assert.equal(repairs.length, 1, daemon.stderr());
    assert.equal(repairs[0].rebuilt, "interrupted");
    console.log(
      `crash during rebuild: generation ${good} (1500 files) served as ready after SIGKILL; ` +
        `repaired to generation ${repaired.generation} in ${repairMs} ms after the daemon started`,
    );
  } finally {
    client.close();
    await daemon.stop();
  }
});

Deno.test("item 10 (real SIGKILL): a crash during the first build never leaves a target served as ready", async () => {
  const root = bigRepository(3000);
  const cache = tempCache();
  const env = { SEXTANT_CACHE_DIR: cache };
  const started = Date.now() - 50;
  const child = spawnCli(["refresh"], root, env);
  await killMidBuild(child, join(cache, "repos"), started);
  const status = await cliJson(["--no-refresh", "status"], root, env);
  const repo = status.data.repositories[0];
  assert.notEqual(repo.state, "ready", JSON.stringify(repo));
  // Answers come from the working tree meanwhile, and say so.
  const search = await cliJson(["--no-refresh", "search", "old_function_7"], root, env);
  assert.equal(search.provenance.fallback_used, true);
  // The next refresh builds it (the abandoned build is removed, not finished half-way).
  const built = await cliJson(["refresh"], root, env);
  assert.equal(built.data.reports[0].plan.add, 3000);
  const ready = await cliJson(["--no-refresh", "status"], root, env);
  assert.equal(ready.data.repositories[0].state, "ready");
  assert.equal(ready.data.repositories[0].files, 3000);
});

Deno.test("items 11, 12, 13 (real daemon, real CLI processes): readers keep the old index during a rebuild; a CLI refresh racing the daemon's rebuild waits for it, never reports a discarded generation nor goes backwards; two processes refreshing at once both succeed", async () => {
  const root = bigRepository(2000);
  const cache = tempCache();
  const env = { SEXTANT_CACHE_DIR: cache };
  const first = await cliJson(["refresh"], root, env);
  const good = first.data.reports[0].generation;
  const daemon = await startDaemon({ workspace: root, cache, args: ["--log-format", "json"] });
  const client = await DaemonClient.connect(daemon.socket);
  const reader = await DaemonClient.connect(daemon.socket);
  try {
    const rebuilding = client.request("rebuild", {}) as Promise<any>;
    let rebuildDone = false;
    rebuilding.then(() => (rebuildDone = true), () => (rebuildDone = true));
    // Once the daemon's rebuild holds the target, a CLI process refreshes the same repository.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(rebuildDone, false, "the rebuild is still running");
    const racing = spawnCli(["--json", "refresh"], root, env).output();
    // Meanwhile every answer comes from the old index, as ready.
    let during = 0;
    while (!rebuildDone) {
      const answer = await reader.request("symbols", { query: "old_function_7" }) as any;
      if (rebuildDone) break;
      assert.equal(answer.provenance.fallback_used, false, JSON.stringify(answer.provenance));
      assert.ok(answer.results.some((hit: any) => hit.name === "old_function_7"));
      // The old generation until the swap; readers may see the new one before the rebuild's
      // own answer reaches its client, never anything in between.
      const generation = answer.repositories[0].generation;
      if (generation !== good) {
        assert.ok(generation > good, `generation ${generation} during a rebuild from ${good}`);
        break;
      }
      during++;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.ok(during > 0, "no answer was asked while the rebuild ran");
    const rebuilt = (await rebuilding).data.reports[0].generation;
    const out = await racing;
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.doesNotMatch(stderr, /locked/);
    const racedGeneration = JSON.parse(new TextDecoder().decode(out.stdout)).data.reports[0]
      .generation;
    const final = (await reader.request("status", {}) as any).data.repositories[0].generation;
    // Generations only move forward: the rebuild's is new, the CLI's is the rebuild's or later,
    // and what is served now is the last one reported.
    assert.ok(rebuilt > good, `rebuild generation ${rebuilt} after ${good}`);
    assert.ok(racedGeneration >= rebuilt, `CLI generation ${racedGeneration} < ${rebuilt}`);
    assert.equal(final, racedGeneration);

    // Two processes refreshing at once (a changed tree, so each has work): both succeed.
    for (let i = 0; i < 2000; i++) {
      Deno.writeTextFileSync(`${root}/pkg/m${i}.py`, `def new_function_${i}(x):\n    return x\n`);
    }
    const [a, b] = await Promise.all([
      spawnCli(["--json", "refresh"], root, env).output(),
      spawnCli(["--json", "refresh"], root, env).output(),
    ]);
    for (const result of [a, b]) {
      assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
    }
    const generations = [a, b].map((result) =>
      JSON.parse(new TextDecoder().decode(result.stdout)).data.reports[0].generation
    );
    // One of them indexed the change; the other waited, then found nothing more to do.
    assert.equal(Math.max(...generations), final + 1, JSON.stringify(generations));
  } finally {
    client.close();
    reader.close();
    await daemon.stop();
  }
});

Deno.test("item 11 (real daemon, query Workers): a target a query finds damaged is never 'ready' in status while actions answer 'corrupt'; it is repaired once, on the daemon's thread, traced", async () => {
  const tree: Record<string, string> = {};
  for (let i = 0; i < 40; i++) {
    tree[`src/m${i}.py`] =
      `class Vault${i}:\n    def open_vault_${i}(self):\n        return ${i}\n`;
  }
  const root = fixtureRepository(tree);
  const cache = tempCache();
  const env = { SEXTANT_CACHE_DIR: cache };
  const first = await cliJson(["refresh"], root, env);
  const good = first.data.reports[0].generation;
  const databasePath = (await cliJson(["status"], root, env)).data.repositories[0].target;
  const identity = createdAt(databasePath);
  // Damage the symbol table's pages only (the checks made when a target is opened pass).
  const db = new DatabaseSync(databasePath);
  const pageSize = Number((db.prepare("PRAGMA page_size").get() as any).page_size);
  const roots = (db.prepare(
    "SELECT rootpage FROM sqlite_master WHERE tbl_name = 'code_symbols' AND rootpage > 0",
  ).all() as any[]).map((row) => Number(row.rootpage));
  db.close();
  const file = Deno.openSync(Deno.realPathSync(databasePath), { read: true, write: true });
  for (const page of roots) {
    file.seekSync((page - 1) * pageSize, Deno.SeekMode.Start);
    file.writeSync(new Uint8Array(pageSize).fill(0x5a));
  }
  file.close();

  const daemon = await startDaemon({ workspace: root, cache, args: ["--log-format", "json"] });
  const client = await DaemonClient.connect(daemon.socket);
  try {
    const corrupt = (answer: unknown) => /corrupt/.test(JSON.stringify(answer));
    const ask = async () => {
      try {
        return await client.request("symbols", { query: "Vault7" });
      } catch (error) {
        return { error: (error as Error).message };
      }
    };
    const firstAnswer = await ask();
    assert.ok(corrupt(firstAnswer), `the damage is seen: ${JSON.stringify(firstAnswer)}`);
    await waitFor("the repair", async () => {
      const status = (await client.request("status", {}) as any).data.repositories[0];
      const answer = await ask();
      if (status.state === "ready" && status.generation > good) {
        // Status and actions agree: ready means answered from the index.
        assert.ok(!corrupt(answer), `status ready, answer ${JSON.stringify(answer)}`);
        return (answer as any).provenance.fallback_used === false ? true : null;
      }
      return null;
    }, 60_000);
    const answer = await ask() as any;
    assert.ok(answer.results.some((hit: any) => hit.name === "Vault7"));
    assert.notEqual(createdAt(databasePath), identity);
    // Repaired once, where refreshes run, and traced with its reason (the trace is written when
    // the refresh Worker's report reaches the daemon's thread, which may follow the swap).
    const corruptRepairs = () =>
      jsonEvents(daemon.stderr(), "refresh").filter((e) => e.rebuilt === "corrupt");
    await waitFor(
      "the repair's trace",
      () => Promise.resolve(corruptRepairs().length > 0 ? true : null),
      10_000,
    );
    const repairs = corruptRepairs();
    assert.equal(repairs.length, 1, daemon.stderr());
    assert.equal(repairs[0].trigger, "repair: corrupt");
  } finally {
    client.close();
    await daemon.stop();
  }
});
