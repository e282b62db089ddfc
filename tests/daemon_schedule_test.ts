/**
 * The order in which the daemon's query Workers take waiting actions: short
 * ones first, fair between clients (through the socket), and the queue's
 * rules on their own (pure).
 */
import assert from "node:assert/strict";
import { DaemonClient } from "../src/daemon/client.ts";
import { FairShortestFirst, LONG_MS, ServiceTimes } from "../src/daemon/schedule.ts";
import { fixtureRepository, slowGrepFixture, startDaemon } from "./_helpers.ts";

/** A grep that parses every file; a distinct `timeout_ms` keeps the answer cache out of it. */
function slowGrep(client: DaemonClient, n: number) {
  return client.request("grep", {
    pattern: "$A ** $B",
    language: "python",
    timeout_ms: 600_000 - n,
  });
}

/** Answers in the order they arrive, by label. */
function recorder() {
  const order: string[] = [];
  const track = (label: string, answer: Promise<unknown>) =>
    answer.then(() => void order.push(label));
  return { order, track };
}

Deno.test("daemon (real socket): with one query Worker, a lookup goes ahead of long greps queued before it, another client's and its own", async () => {
  const daemon = await startDaemon({
    workspace: fixtureRepository(slowGrepFixture(400)),
    args: ["--query-workers", "1"],
  });
  const a = await DaemonClient.connect(daemon.socket);
  const b = await DaemonClient.connect(daemon.socket);
  try {
    await a.request("refresh", {});
    // The pool learns what each action takes.
    await slowGrep(a, 0);
    await b.request("definition", { symbol: "f_1_1" });

    const { order, track } = recorder();
    const greps = [1, 2, 3].map((n) => track(`grep${n}`, slowGrep(a, n)));
    const own = track("own definition", a.request("definition", { symbol: "f_2_2" }));
    const other = track("other definition", b.request("definition", { symbol: "f_3_3" }));
    await Promise.all([...greps, own, other]);
    // At most the grep already running finishes first; both lookups go before the other two.
    assert.ok(order.indexOf("other definition") < order.indexOf("grep2"), order.join(", "));
    assert.ok(order.indexOf("own definition") < order.indexOf("grep2"), order.join(", "));
    assert.equal(order.at(-1), "grep3", order.join(", "));
  } finally {
    a.close();
    b.close();
    await daemon.stop();
  }
});

Deno.test("daemon (real socket): with two query Workers, long greps leave one Worker to a lookup", async () => {
  const daemon = await startDaemon({
    // Enough files that a grep runs past `LONG_MS` (it runs about a second).
    workspace: fixtureRepository(slowGrepFixture(1200)),
    args: ["--query-workers", "2"],
  });
  const a = await DaemonClient.connect(daemon.socket);
  const b = await DaemonClient.connect(daemon.socket);
  try {
    await a.request("refresh", {});
    const started = performance.now();
    await slowGrep(a, 0);
    const grepMs = performance.now() - started;
    assert.ok(grepMs > LONG_MS, `a grep takes ${Math.round(grepMs)} ms: not long enough`);
    await b.request("definition", { symbol: "f_1_1" });

    const { order, track } = recorder();
    const greps = [1, 2].map((n) => track(`grep${n}`, slowGrep(a, n)));
    // Sent once the greps are queued: one runs, the other may not take the last free Worker.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const lookup = track("definition", b.request("definition", { symbol: "f_3_3" }));
    await Promise.all([...greps, lookup]);
    assert.equal(order[0], "definition", order.join(", "));
  } finally {
    a.close();
    b.close();
    await daemon.stop();
  }
});

/** A queue whose actions take the given milliseconds. */
function queueOf(times: Record<string, number>) {
  const service = new ServiceTimes();
  for (const [action, ms] of Object.entries(times)) service.observe(action, ms);
  return new FairShortestFirst<string>(service);
}

/** Takes every waiting job, as one Worker would; returns their labels in order. */
function drain(queue: FairShortestFirst<string>, longAllowed = true): string[] {
  const out: string[] = [];
  for (let ticket = queue.take(longAllowed); ticket; ticket = queue.take(longAllowed)) {
    out.push(ticket.item);
  }
  return out;
}

Deno.test("schedule: among clients served alike, the shortest expected job goes first", () => {
  const queue = queueOf({ search: 10, definition: 1 });
  const [a, b, c] = [{}, {}, {}];
  queue.push(a, "search", "a search");
  queue.push(b, "search", "b search");
  queue.push(c, "definition", "c definition");
  assert.deepEqual(drain(queue), ["c definition", "a search", "b search"]);
});

Deno.test("schedule: a flood from one client delays another client's job by about one job", () => {
  const queue = queueOf({ search: 10 });
  const [flooder, other] = [{}, {}];
  for (let i = 0; i < 1000; i++) queue.push(flooder, "search", `flood ${i}`);
  assert.equal(queue.take(true)!.item, "flood 0");
  queue.push(other, "search", "other");
  const order = drain(queue);
  assert.ok(order.indexOf("other") <= 1, `other went ${order.indexOf("other")}th`);
  assert.equal(order.length, 1000);
});

Deno.test("schedule: a long job is not passed over forever by another client's stream of short ones", () => {
  const queue = queueOf({ impact: 40, definition: 1 });
  const [patient, busy] = [{}, {}];
  queue.push(patient, "impact", "impact");
  const order: string[] = [];
  // The busy client always has one definition waiting (a closed loop).
  for (let i = 0; i < 200 && !order.includes("impact"); i++) {
    queue.push(busy, "definition", `definition ${i}`);
    order.push(queue.take(true)!.item);
  }
  assert.ok(order.includes("impact"), "the impact never ran");
  assert.ok(order.indexOf("impact") <= 45, `impact went after ${order.indexOf("impact")} jobs`);
});

Deno.test("schedule: one client's own short job goes ahead of its long ones, but not forever", () => {
  const queue = queueOf({ grep: 500, symbols: 1 });
  const owner = {};
  queue.push(owner, "grep", "grep 1", 0);
  queue.push(owner, "grep", "grep 2", 0);
  queue.push(owner, "symbols", "symbols", 1);
  assert.deepEqual(drain(queue), ["symbols", "grep 1", "grep 2"]);
  // A symbols queued ten grep-times later goes after the grep.
  queue.push(owner, "grep", "old grep", 0);
  queue.push(owner, "symbols", "late symbols", 10 * 500 + 1);
  assert.deepEqual(drain(queue), ["old grep", "late symbols"]);
});

Deno.test("schedule: a job expected to run long is passed over when it may not take the last Worker", () => {
  const queue = queueOf({ impact: LONG_MS * 2, symbols: 1 });
  const [a, b] = [{}, {}];
  queue.push(a, "impact", "impact");
  assert.equal(queue.take(false), null);
  queue.push(b, "symbols", "symbols");
  assert.equal(queue.take(false)!.item, "symbols");
  assert.equal(queue.take(true)!.item, "impact");
  assert.equal(queue.size, 0);
});

Deno.test("schedule: a removed job never runs; an action's expected time follows its runs", () => {
  const queue = queueOf({});
  const owner = {};
  const first = queue.push(owner, "search", "first");
  queue.push(owner, "search", "second");
  assert.equal(queue.remove(first), true);
  assert.equal(queue.remove(first), false);
  assert.deepEqual(drain(queue), ["second"]);
  const times = new ServiceTimes();
  times.observe("grep", 100);
  for (let i = 0; i < 30; i++) times.observe("grep", 10);
  assert.ok(
    times.expected("grep") < 11 && times.expected("grep") >= 10,
    `${times.expected("grep")}`,
  );
});
