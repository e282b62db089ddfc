/**
 * Parse Workers started by another thread for a pool (`src/workspace/worker_relay.ts`, what the
 * daemon's refresh Worker uses): jobs and replies go over the port handed to them, a Worker that
 * fails to load is reported back as it is for a Worker the pool started, and closing the pool
 * ends them. Here the test thread is both the pool's thread and the parent.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ParsePool, START_ATTEMPTS } from "../src/indexer/pool.ts";
import { loadLanguageTable } from "../src/indexer/languages.ts";
import type { ParseJob } from "../src/indexer/parse_types.ts";
import {
  RelayedWorkers,
  type RelayReply,
  type RelayRequest,
  WorkerRelayHost,
} from "../src/workspace/worker_relay.ts";
import { tempDirectory, within } from "./_helpers.ts";

function job(root: string, id: number, path = "a.py"): ParseJob {
  return {
    id,
    root,
    path,
    language: "python",
    knownHash: null,
    maxFileSize: 1 << 20,
    packageRoot: null,
  };
}

/** A relay whose parent is this thread; every request and answer is counted. */
function relay(): { relayed: RelayedWorkers; host: WorkerRelayHost; seen: string[] } {
  const seen: string[] = [];
  const host = new WorkerRelayHost({
    postMessage: (message) => {
      seen.push((message as RelayReply).type);
      relayed.receive(message as RelayReply);
    },
  });
  // Called only once both exist (a request comes from a pool, after this returns).
  const relayed = new RelayedWorkers((request: RelayRequest) => {
    seen.push(request.type);
    host.receive(request);
  });
  return { relayed, host, seen };
}

Deno.test("worker relay: a pool's Workers started by its parent parse over their port, and end with the pool", async () => {
  const root = tempDirectory({ prefix: "sextant-relay-" });
  Deno.writeTextFileSync(join(root, "a.py"), "def f():\n    return 1\n");
  Deno.writeTextFileSync(join(root, "b.py"), "class B:\n    def g(self):\n        return f()\n");
  const { relayed, host, seen } = relay();
  const pool = new ParsePool({ root, table: loadLanguageTable(), size: 1, start: relayed.start });
  try {
    const first = await within(pool.parse(job(root, 1)), 60_000, "a relayed parse");
    assert.equal(first.status, "parsed", JSON.stringify(first));
    const second = await within(pool.parse(job(root, 2, "b.py")), 60_000, "a second parse");
    assert.equal(second.status, "parsed", JSON.stringify(second));
    if (second.status === "parsed") assert.ok(second.rows.symbols.length >= 2);
    // One Worker, started once, through the parent; the jobs never went through it.
    assert.equal(host.size, 1);
    assert.deepEqual(seen, ["relay-start", "relay-port"]);
    // The Worker reads only its root, as one the pool starts itself.
    const outside = tempDirectory({ prefix: "sextant-relay-out-" });
    Deno.writeTextFileSync(join(outside, "c.py"), "x = 1\n");
    const refused = await within(pool.parse(job(outside, 3, "c.py")), 60_000, "a file outside");
    assert.notEqual(refused.status, "parsed");
    Deno.removeSync(outside, { recursive: true });
  } finally {
    pool.close();
  }
  assert.equal(host.size, 0);
  assert.equal(seen.at(-1), "relay-terminate");
  Deno.removeSync(root, { recursive: true });
});

Deno.test("worker relay: Workers that cannot load are reported back and fail the jobs with the reason", async () => {
  const root = tempDirectory({ prefix: "sextant-relay-broken-" });
  Deno.writeTextFileSync(join(root, "a.py"), "def f():\n    return 1\n");
  const { relayed, host, seen } = relay();
  const pool = new ParsePool({
    root,
    table: loadLanguageTable(),
    size: 1,
    start: relayed.start,
    module: new URL("./_unstartable_parse_worker.ts", import.meta.url),
  });
  try {
    const reply = await within(pool.parse(job(root, 1)), 60_000, "a job no Worker takes");
    assert.equal(reply.status, "failed");
    if (reply.status === "failed") {
      assert.match(reply.message, new RegExp(`cannot start \\(${START_ATTEMPTS} in a row`));
      assert.match(reply.message, /this parse Worker cannot load/);
    }
    assert.equal(seen.filter((type) => type === "relay-error").length, START_ATTEMPTS);
    assert.equal(host.size, 0, "every failed Worker was ended");
  } finally {
    pool.close();
    Deno.removeSync(root, { recursive: true });
  }
});
