// Answers and traces are untyped JSON.
// deno-lint-ignore-file no-explicit-any
/** One request, one trace id: the answer's `trace_id` is the one the daemon's trace carries. */
import assert from "node:assert/strict";
import { DaemonClient } from "../src/daemon/client.ts";
import { fixtureRepository, startDaemon } from "./_helpers.ts";

/** Functions long enough to be chunks of their own. */
const RETRY = Array.from(
  { length: 4 },
  (_, i) =>
    `def retry_step_${i}(call, attempts=${i}):\n` +
    Array.from({ length: 30 }, (_, j) => `    value_${j} = call(${j}, attempts)\n`).join("") +
    "    return call()\n",
).join("\n\n");

const FILES = {
  "src/config.ts": "export function parseConfig(path: string): string {\n  return path;\n}\n",
  "src/retry.py": RETRY,
};

/** The `request` traces the daemon wrote so far (JSON lines on stderr). */
function requestTraces(stderr: string): any[] {
  return stderr.split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
    .filter((event) => event.event === "request");
}

Deno.test("daemon (real socket): an answer's trace_id is the one its request trace logs, with the backend, the fallback reason and where it ran; refresh traces count reused vectors", async () => {
  const root = fixtureRepository(FILES);
  const daemon = await startDaemon({ workspace: root, args: ["--log-format", "json"] });
  const client = await DaemonClient.connect(daemon.socket);
  try {
    const traceOf = async (answer: any) => {
      // The trace is written right after the answer is queued; give stderr a moment.
      for (let i = 0; i < 50; i++) {
        const found = requestTraces(daemon.stderr()).filter((t) => t.trace_id === answer.trace_id);
        if (found.length > 0) return found;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return [];
    };
    // No target yet: the live scan answers on the main thread, and says why.
    const live = await client.request("search", { query: "parseConfig", refresh: false }) as any;
    assert.equal(live.provenance.fallback_used, true, JSON.stringify(live.provenance));
    const [liveTrace, ...extraLive] = await traceOf(live);
    assert.ok(liveTrace, `no trace carries ${live.trace_id}`);
    assert.equal(extraLive.length, 0);
    assert.equal(liveTrace.method, "search");
    assert.equal(liveTrace.backend, live.provenance.backend);
    assert.equal(liveTrace.fallback, live.provenance.fallback_reason);
    assert.match(liveTrace.runner, /^main thread \(a target is missing or damaged\)$/);

    await client.request("refresh", {});
    // The refresh trace says how many chunk vectors were computed and how many reused.
    Deno.writeTextFileSync(
      `${root}/src/retry.py`,
      RETRY + "\n\ndef later():\n    return 2\n",
    );
    await client.request("refresh", {});
    const refreshes = daemon.stderr().split("\n").filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line)).filter((event) => event.event === "refresh");
    assert.equal(refreshes.length, 2);
    assert.ok(refreshes[0].vectors.computed > 0, JSON.stringify(refreshes[0]));
    assert.ok(refreshes[1].vectors.reused > 0, JSON.stringify(refreshes[1]));
    const first = await client.request("symbols", { query: "parseConfig" }) as any;
    const again = await client.request("symbols", { query: "parseConfig" }) as any;
    assert.notEqual(first.trace_id, again.trace_id, "each request has its own id");
    const [firstTrace] = await traceOf(first);
    const [againTrace] = await traceOf(again);
    assert.ok(firstTrace && againTrace, "both answers' ids are in the traces");
    assert.equal(firstTrace.backend, first.provenance.backend);
    assert.equal(firstTrace.runner, "query Worker");
    assert.equal(againTrace.cached, true);
    assert.equal(againTrace.runner, "cache");
    assert.equal(firstTrace.fallback, undefined);

    const status = await client.request("status") as any;
    assert.equal((await traceOf(status))[0]?.method, "status");
  } finally {
    client.close();
    await daemon.stop();
  }
});

Deno.test("daemon (real socket): a request answered while others hit the answer cache is not traced as cached, and the cache counters count each request once", async () => {
  const root = fixtureRepository(FILES);
  const daemon = await startDaemon({ workspace: root, args: ["--log-format", "json"] });
  const control = await DaemonClient.connect(daemon.socket);
  const asker = await DaemonClient.connect(daemon.socket);
  try {
    await control.request("refresh", {});
    const ask = () => asker.request("symbols", { query: "parseConfig" }) as Promise<any>;
    await ask();
    // A refresh with a file to parse (uncacheable) runs while the other client's repeated
    // question is answered from the cache, over and over.
    Deno.writeTextFileSync(`${root}/src/retry.py`, RETRY + "\n\ndef later():\n    return 2\n");
    let refreshed = false;
    const refresh = (control.request("refresh", {}) as Promise<any>).finally(() =>
      refreshed = true
    );
    const meanwhile: any[] = [];
    while (!refreshed) meanwhile.push(await ask());
    const refreshAnswer = await refresh;
    const status = await control.request("status") as any;

    // Traces are written right after their answers: wait for the last one asked.
    const traces = () => requestTraces(daemon.stderr());
    for (let i = 0; i < 50 && !traces().some((t) => t.trace_id === status.trace_id); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const byId = new Map(traces().map((t) => [t.trace_id, t]));
    const hitsWhileRefreshing = meanwhile.filter((a) => byId.get(a.trace_id)?.cached === true);
    assert.ok(hitsWhileRefreshing.length > 0, "the cache answered while the refresh ran");
    const refreshTrace = byId.get(refreshAnswer.trace_id);
    assert.ok(refreshTrace, "the refresh is traced");
    assert.equal(refreshTrace.cached, undefined);
    assert.notEqual(refreshTrace.runner, "cache");
    // Every symbols request is a hit or a miss, once; refresh and status are neither.
    const cache = status.data.daemon.cache;
    assert.equal(cache.hits + cache.misses, meanwhile.length + 1);
    assert.equal(cache.hits, [...byId.values()].filter((t) => t.cached === true).length);
  } finally {
    asker.close();
    control.close();
    await daemon.stop();
  }
});
