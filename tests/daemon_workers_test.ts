// Answers are untyped JSON read back from the socket.
// deno-lint-ignore-file no-explicit-any
/**
 * The daemon's Workers: started before the daemon listens, and replaced when
 * one fails, without taking the daemon down. The daemon runs in this process
 * on a real socket, with query Workers that fail on purpose
 * (`_failing_query_worker.ts`): a Worker error that reached the process would
 * fail the test.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DaemonClient, RpcFailure } from "../src/daemon/client.ts";
import { TraceLog } from "../src/daemon/observe.ts";
import { Daemon } from "../src/daemon/server.ts";
import { WARM_UP, WARM_UP_QUIET_MS } from "../src/daemon/query_pool.ts";
import { ErrorCode } from "../src/protocol/errors.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { fixtureRepository, socketDirectory, tempCache } from "./_helpers.ts";

const FILES = {
  "src/config.ts": "export function parseConfig(path: string): string {\n  return path;\n}\n",
  "src/retry.py": "def retry_with_backoff(call):\n    return call()\n",
};

async function failure(promise: Promise<unknown>): Promise<RpcFailure> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RpcFailure, `${error}`);
    return error;
  }
  assert.fail("expected an error answer");
}

Deno.test("daemon (real socket): a query Worker that fails outside its action is replaced; only its job fails, and the daemon answers the next request", async () => {
  const daemon = await Daemon.start({
    socket: join(socketDirectory(), "d.sock"),
    workspace: { directory: fixtureRepository(FILES), cacheDirectory: tempCache() },
    log: new TraceLog({ quiet: true }),
    queryWorkerModule: new URL("./_failing_query_worker.ts", import.meta.url),
  });
  const serving = daemon.serve();
  const client = await DaemonClient.connect(daemon.socket);
  try {
    await client.request("refresh", {});
    for (const query of ["throw outside the action", "reject outside the action"]) {
      // The failing job and a good one at once: each has a Worker of its own.
      const [failed, answered] = await Promise.all([
        failure(client.request("search", { query })),
        client.request("search", { query: `parseConfig ${query}` }) as Promise<any>,
      ]);
      assert.equal(failed.code, ErrorCode.InternalError, failed.message);
      assert.match(failed.message, /query Worker failed/);
      assert.equal(answered.results[0]?.path, "src/config.ts");
    }
    // Every Worker failed at least once by now (two faults each, two Workers): all replaced.
    for (let i = 0; i < 3; i++) {
      await failure(client.request("search", { query: "throw outside the action" }));
    }
    const next = await client.request("search", { query: "retry_with_backoff" }) as any;
    assert.equal(next.results[0]?.path, "src/retry.py");
    assert.equal(
      (await client.request("symbols", { query: "parseConfig" }) as any).action,
      "symbols",
    );
    const status = await client.request("status") as any;
    assert.equal(status.data.daemon.errors.InternalError, 5, JSON.stringify(status.data.daemon));
  } finally {
    client.close();
    await daemon.shutdown();
    await serving;
  }
});

Deno.test("daemon (real socket): the query Worker warms up once the daemon listens and after a refresh that made a new generation, not after one that changed nothing", async () => {
  const directory = fixtureRepository(FILES);
  const cacheDirectory = tempCache();
  // Indexed first: a search goes to the query Workers only once its target is current.
  const indexed = await Workspace.open({ directory, cacheDirectory });
  await indexed.refresh(indexed.repositories[0]);
  indexed.close();
  const daemon = await Daemon.start({
    socket: join(socketDirectory(), "d.sock"),
    workspace: { directory, cacheDirectory },
    log: new TraceLog({ quiet: true }),
    queryWorkerModule: new URL("./_counting_query_worker.ts", import.meta.url),
  });
  const serving = daemon.serve();
  const client = await DaemonClient.connect(daemon.socket);
  // The warm-ups the resident Worker answered, read (a search for `jobs …`) once there are
  // `count` of them or 10 s have passed; asked every 300 ms, so the pool is idle long enough
  // between two reads for a warm-up to start.
  let asked = 0;
  const warmUps = async (count: number) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, WARM_UP_QUIET_MS * 6));
      const answer = await client.request("search", { query: `jobs ${asked++}` }) as any;
      const found = (answer.data.jobs as any[]).filter((job) => job.agent === null);
      if (found.length >= count || Date.now() > deadline) return found;
    }
  };
  const warmUp = { action: WARM_UP.action, agent: null, outcome: "answer" };
  try {
    assert.deepEqual(await warmUps(1), [warmUp], "after the start");
    await client.request("refresh", {});
    // Time enough for a warm-up to have run, had one been asked.
    await new Promise((resolve) => setTimeout(resolve, WARM_UP_QUIET_MS * 10));
    assert.deepEqual(await warmUps(1), [warmUp], "a refresh that changed nothing");
    Deno.writeTextFileSync(
      join(directory, "src/retry.py"),
      "def retry_twice(call):\n    return call()\n",
    );
    await client.request("refresh", {});
    assert.deepEqual(await warmUps(2), [warmUp, warmUp], "after an edit");
  } finally {
    client.close();
    await daemon.shutdown();
    await serving;
  }
});

Deno.test("daemon (real process): a process with no descriptor left is told it may not start a Worker", async () => {
  const out = await new Deno.Command("prlimit", {
    args: [
      "--nofile=128",
      Deno.execPath(),
      "run",
      "--allow-all",
      new URL("./_descriptor_probe.ts", import.meta.url).pathname,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const { before, exhausted, relieved } = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(before.limit, 128);
  assert.ok(before.open > 0 && before.open < 100, JSON.stringify(before));
  assert.equal(before.free, true);
  assert.deepEqual(exhausted, { free: false, freeOne: false });
  assert.equal(relieved.free, true, JSON.stringify(relieved));
  assert.ok(relieved.open <= 128 - 24, JSON.stringify(relieved));
});
