/**
 * The daemon's query Workers: vector indexes are shared, each handed to a Worker once; a spare
 * Worker starts only while long jobs hold the resident one, or under pressure (a refresh); a
 * warm-up runs only on a pool that has been idle for a moment.
 */
import assert from "node:assert/strict";
import {
  QueryPool,
  SLOW_MS,
  SPARE_IDLE_MS,
  WARM_UP,
  WARM_UP_QUIET_MS,
} from "../src/daemon/query_pool.ts";
import type { Envelope } from "../src/protocol/types.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { fixtureRepository, tempCache } from "./_helpers.ts";

/** A fixture repository with a current target: its directory and cache. */
async function indexedFixture(): Promise<{ directory: string; cacheDirectory: string }> {
  const directory = fixtureRepository({
    "src/retry.ts": "export function retryWithBackoff(attempts: number) {\n  return attempts;\n}\n",
    "src/cookies.ts":
      "export function mergeCookies(jar: Map<string, string>) {\n  return jar;\n}\n",
  });
  const cacheDirectory = tempCache();
  const workspace = await Workspace.open({ directory, cacheDirectory });
  try {
    await workspace.refresh(workspace.repositories[0]);
  } finally {
    workspace.close();
  }
  return { directory, cacheDirectory };
}

/** A job for the pool on `workspace`, as the daemon builds one. */
function job(
  workspace: { directory: string; cacheDirectory: string },
  action: string,
  params: Record<string, unknown>,
) {
  return { epoch: 1, workspace, agent: "test", action, params };
}

Deno.test("query pool: a spare Worker starts only while a long job holds the resident one, takes the short jobs waiting, and ends when idle", async () => {
  const workspace = await indexedFixture();
  const pool = new QueryPool(2, {
    module: new URL("./_counting_query_worker.ts", import.meta.url),
    resident: 1,
  });
  try {
    await pool.ready();
    assert.equal(pool.running, 1);
    // Short jobs, many waiting at once: the resident Worker serves them; no spare starts.
    await Promise.all(
      Array.from(
        { length: 12 },
        (_, i) => pool.run(job(workspace, "search", { query: `retry ${i}` })),
      ),
    );
    assert.equal(pool.running, 1);
    // A job running past SLOW_MS holds the resident Worker: a short job waiting gets a spare.
    let longDone = false;
    const long = pool.run(job(workspace, "sleep", { ms: SLOW_MS + 8000 })).then(() =>
      longDone = true
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const search = await pool.run(job(workspace, "search", { query: "merge cookies" })) as
      & Envelope
      & {
        results: unknown[];
      };
    assert.ok(search.results.length > 0);
    assert.equal(longDone, false, "the short job waited for the long one");
    assert.equal(pool.running, 2);
    await long;
    // With nothing to do, the spare ends.
    await new Promise((resolve) => setTimeout(resolve, SPARE_IDLE_MS + 1500));
    assert.equal(pool.running, 1);
  } finally {
    pool.close();
  }
});

Deno.test("query pool: under pressure (a refresh runs) waiting short jobs start the spare; without it they do not", async () => {
  const workspace = await indexedFixture();
  let pressure = false;
  const pool = new QueryPool(2, {
    module: new URL("./_counting_query_worker.ts", import.meta.url),
    resident: 1,
    pressure: () => pressure,
  });
  const search = (i: number) => pool.run(job(workspace, "search", { query: `retry ${i}` }));
  try {
    await pool.ready();
    await Promise.all(Array.from({ length: 12 }, (_, i) => search(i)));
    assert.equal(pool.running, 1, "no pressure: one Worker");
    pressure = true;
    // Jobs keep waiting while the spare starts; it starts once one waits under pressure.
    const deadline = Date.now() + 20_000;
    let round = 0;
    while (pool.running < 2 && Date.now() < deadline) {
      await Promise.all(Array.from({ length: 12 }, (_, i) => search(round * 12 + i)));
      round++;
    }
    assert.equal(pool.running, 2, "under pressure the spare runs");
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => search(1000 + i)));
    assert.ok(answers.every((answer) => (answer as { results: unknown[] }).results.length > 0));
    pressure = false;
    await new Promise((resolve) => setTimeout(resolve, SPARE_IDLE_MS + 1500));
    assert.equal(pool.running, 1, "the spare ends once idle");
  } finally {
    pool.close();
  }
});

Deno.test("query pool: a spare that starts answers a warm-up search on the last job's workspace before its first job, and the answer goes to no one", async () => {
  const workspace = await indexedFixture();
  const pool = new QueryPool(2, {
    module: new URL("./_counting_query_worker.ts", import.meta.url),
    resident: 1,
  });
  type Received = { data: { received: string[]; worker: string } };
  try {
    await pool.ready();
    const resident = await pool.run(job(workspace, "received", {})) as Received;
    assert.deepEqual(resident.data.received, [], "the resident Worker is not warmed up");
    // A long job holds the resident Worker: the next job starts the spare.
    const long = pool.run(job(workspace, "sleep", { ms: SLOW_MS + 3000 }));
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS + 500));
    const spare = await pool.run(job(workspace, "received", {})) as Received;
    assert.notEqual(spare.data.worker, resident.data.worker);
    assert.deepEqual(spare.data.received, [WARM_UP.action]);
    // Every job still gets its own answer.
    const search = await pool.run(job(workspace, "search", { query: "merge cookies" })) as
      & Envelope
      & { results: { path: string }[] };
    assert.equal(search.results[0]?.path, "src/cookies.ts");
    await long;
  } finally {
    pool.close();
  }
});

Deno.test("query pool: while a Worker collects its garbage after a reply, jobs go to the other Worker running", async () => {
  const workspace = await indexedFixture();
  const pool = new QueryPool(2, {
    module: new URL("./_counting_query_worker.ts", import.meta.url),
    resident: 1,
    pressure: () => true,
  });
  type Named = { data: { worker: string } };
  const sleep = () => pool.run(job(workspace, "sleep", { ms: 50 })) as Promise<Named>;
  try {
    await pool.ready();
    // Under pressure, jobs waiting start the spare. It answers its warm-up search first (slow on
    // a loaded machine): the rounds start once a pair sent together is answered by both Workers,
    // so neither is still busy when a round's jobs arrive.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const pair = await Promise.all([sleep(), sleep()]);
      const both = pair[0].data.worker !== pair[1].data.worker;
      if ((pool.running === 2 && both) || Date.now() > deadline) break;
    }
    assert.equal(pool.running, 2);
    for (let round = 0; round < 3; round++) {
      const collected = await pool.run(job(workspace, "collect", { ms: 1500 })) as Named;
      // The Worker that answered holds its thread for 1.5 s: the next job goes to the other.
      const next = await sleep();
      assert.notEqual(next.data.worker, collected.data.worker, `round ${round}`);
    }
    // Once collected, the Worker takes jobs again: both answer a pair sent together.
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const pair = await Promise.all([sleep(), sleep()]);
    assert.notEqual(pair[0].data.worker, pair[1].data.worker);
  } finally {
    pool.close();
  }
});

Deno.test("query pool: a vector index one Worker loads reaches each other Worker once, never back to its loader", async () => {
  const workspace = await indexedFixture();
  const pool = new QueryPool(2, {
    module: new URL("./_counting_query_worker.ts", import.meta.url),
  });
  try {
    await pool.ready();
    const search = (query: string) => pool.run(job(workspace, "search", { query }));
    // One at a time: the first free Worker takes each; the first search loads the index there.
    for (const query of ["retry backoff", "merge cookies", "attempts", "jar"]) {
      const answer = await search(query) as Envelope & { results: unknown[] };
      assert.ok(answer.results.length > 0, query);
    }
    // Two at a time: both Workers search.
    for (const pair of [["retry", "cookies"], ["backoff", "merge"], ["attempts", "jar map"]]) {
      await Promise.all(pair.map(search));
    }
    const counts = await Promise.all(
      [0, 1].map(() =>
        pool.run(job(workspace, "handovers", {})) as Promise<{ data: { carried: number[] } }>
      ),
    );
    const carried = counts.map((answer) => answer.data.carried);
    assert.equal(carried.length, 2);
    assert.ok(carried.every((jobs) => jobs.length > 0), JSON.stringify(carried));
    // One index (one target, one model, one generation): handed over at most once in all, to
    // the Worker that did not load it, and never with every job.
    const handed = carried.flat().reduce((sum, n) => sum + n, 0);
    assert.ok(
      handed <= 1,
      `indexes handed over, per job of each Worker: ${JSON.stringify(carried)}`,
    );
  } finally {
    pool.close();
  }
});

type Jobs = { data: { jobs: { action: string; agent: string | null; outcome: string | null }[] } };

/** The jobs a pool of one Worker has handed it so far (the `jobs` job itself not counted). */
async function jobsOf(pool: QueryPool, workspace: { directory: string; cacheDirectory: string }) {
  return (await pool.run(job(workspace, "jobs", {})) as Jobs).data.jobs;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("query pool: a warm-up waits until the pool is idle; a job sent at once goes first, and the warm-up, under no agent, is answered", async () => {
  const workspace = await indexedFixture();
  const pool = new QueryPool(1, {
    module: new URL("./_counting_query_worker.ts", import.meta.url),
  });
  try {
    await pool.ready();
    pool.warm({ epoch: 1, workspace, agent: null, ...WARM_UP });
    // Asked right after (as a `refresh: true` search is): answered before any warm-up.
    const first = await pool.run(job(workspace, "search", { query: "merge cookies" })) as
      & Envelope
      & { results: { path: string }[] };
    assert.equal(first.results[0]?.path, "src/cookies.ts");
    assert.deepEqual(await jobsOf(pool, workspace), [
      { action: "search", agent: "test", outcome: "answer" },
    ]);
    // Once the pool has been idle for a moment, the Worker answers the warm-up: a search run under
    // no grant (no agent), whose answer goes to no one.
    await pause(WARM_UP_QUIET_MS * 4 + 500);
    assert.deepEqual((await jobsOf(pool, workspace)).slice(1), [
      { action: WARM_UP.action, agent: null, outcome: "answer" },
    ]);
    // One warm-up per call.
    await pause(WARM_UP_QUIET_MS * 4);
    assert.equal((await jobsOf(pool, workspace)).length, 2);
  } finally {
    pool.close();
  }
});

Deno.test("query pool: no warm-up runs while jobs keep the pool busy; it runs once they stop", async () => {
  const workspace = await indexedFixture();
  const pool = new QueryPool(1, {
    module: new URL("./_counting_query_worker.ts", import.meta.url),
  });
  try {
    await pool.ready();
    // A job holds the Worker when the warm-up is asked, and others follow it back to back for a
    // while (longer than the pool's quiet time in all).
    const held = pool.run(job(workspace, "sleep", { ms: 300 }));
    pool.warm({ epoch: 1, workspace, agent: null, ...WARM_UP });
    await held;
    for (let i = 0; i < 10; i++) await pool.run(job(workspace, "sleep", { ms: 20 }));
    const busy = await jobsOf(pool, workspace);
    assert.equal(busy.length, 11);
    assert.ok(busy.every((each) => each.action === "sleep"), JSON.stringify(busy));
    await pause(WARM_UP_QUIET_MS * 4 + 500);
    assert.deepEqual((await jobsOf(pool, workspace)).slice(11), [
      { action: WARM_UP.action, agent: null, outcome: "answer" },
    ]);
  } finally {
    pool.close();
  }
});

Deno.test("query pool: a warm-up leaves out a repository not indexed yet (a search there would scan its tree): there is nothing to warm", async () => {
  const workspace = {
    directory: fixtureRepository({ "src/retry.ts": "export function retry() {}\n" }),
    cacheDirectory: tempCache(),
  };
  const pool = new QueryPool(1, {
    module: new URL("./_counting_query_worker.ts", import.meta.url),
  });
  try {
    await pool.ready();
    pool.warm({ epoch: 1, workspace, agent: null, ...WARM_UP });
    const deadline = Date.now() + 10_000;
    let jobs = await jobsOf(pool, workspace);
    while (jobs.length === 0 && Date.now() < deadline) {
      await pause(WARM_UP_QUIET_MS * 6);
      jobs = await jobsOf(pool, workspace);
    }
    assert.deepEqual(jobs, [{ action: WARM_UP.action, agent: null, outcome: "IndexBusy" }]);
  } finally {
    pool.close();
  }
});
