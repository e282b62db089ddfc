/**
 * The daemon's refresh runs beside its answers at a lower CPU priority, and
 * its parse Workers do not outlive the refreshes: one fresh Worker stands by
 * for the next (Linux: threads are read from /proc).
 */
import assert from "node:assert/strict";
import { DaemonClient } from "../src/daemon/client.ts";
import { POOL_IDLE_MS, REFRESH_NICE } from "../src/workspace/refresh_priority.ts";
import { fixtureRepository, startDaemon, tempDirectory, writeFiles } from "./_helpers.ts";

/** The Worker threads of a process (Deno names them `worker-N`) with their nice values. */
function workerThreads(pid: number): { name: string; nice: number }[] {
  const threads: { name: string; nice: number }[] = [];
  for (const entry of Deno.readDirSync(`/proc/${pid}/task`)) {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/task/${entry.name}/stat`);
      const close = stat.lastIndexOf(")");
      const name = stat.slice(stat.indexOf("(") + 1, close);
      // Field 19 (1-based) of the line is the nice value.
      const nice = Number(stat.slice(close + 2).split(" ")[16]);
      if (/^worker-\d+$/.test(name)) threads.push({ name, nice });
    } catch { /* the thread ended */ }
  }
  return threads.sort((a, b) => Number(a.name.slice(7)) - Number(b.name.slice(7)));
}

function sources(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    files[`src/m${i}.ts`] = `export function handler${i}(value: number): number {\n` +
      `  return value * ${i};\n}\n`;
  }
  return files;
}

Deno.test({
  name:
    "daemon (real process): the refresh Worker and its parse Workers run at a lower priority than the query Workers; when refreshes stop the parse Workers end and one fresh Worker stands by, which the next refresh uses",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const root = fixtureRepository(sources(40));
    const daemon = await startDaemon({ workspace: root, args: ["--query-workers", "2"] });
    const client = await DaemonClient.connect(daemon.socket);
    try {
      const pid = daemon.process.pid;
      // Started before the socket listens: the resident query Worker, then the refresh Worker
      // (the second query Worker starts only while long jobs hold the first).
      const started = workerThreads(pid);
      assert.deepEqual(started.map((t) => t.nice), [0, REFRESH_NICE], JSON.stringify(started));

      const answer = await client.request("refresh", {}) as {
        data: { reports: { parsed: number }[] };
      };
      assert.equal(answer.data.reports[0].parsed, 40);
      const refreshing = workerThreads(pid);
      const parse = refreshing.slice(2);
      assert.ok(parse.length >= 1, JSON.stringify(refreshing));
      assert.ok(parse.every((t) => t.nice === REFRESH_NICE), JSON.stringify(refreshing));
      // Answers still come from Workers at the normal priority.
      const search = await client.request("search", { query: "handler7" }) as {
        results: unknown[];
      };
      assert.ok(search.results.length > 0);
      assert.deepEqual(workerThreads(pid).slice(0, 1).map((t) => t.nice), [0]);

      // Idle: the refresh's parse Workers are gone, and one new Worker stands by.
      await new Promise((resolve) => setTimeout(resolve, POOL_IDLE_MS + 2000));
      const idle = workerThreads(pid);
      assert.deepEqual(
        idle.map((t) => t.nice),
        [0, REFRESH_NICE, REFRESH_NICE],
        JSON.stringify(idle),
      );
      const standby = idle[2].name;
      assert.ok(!parse.some((t) => t.name === standby), JSON.stringify({ parse, idle }));
      // An edit's refresh parses in the standby: no Worker starts for it.
      writeFiles(root, { "src/m3.ts": "export function edited(): number {\n  return 3;\n}\n" });
      const edit = await client.request("refresh", {}) as {
        data: { reports: { parsed: number }[] };
      };
      assert.equal(edit.data.reports[0].parsed, 1);
      assert.deepEqual(workerThreads(pid).map((t) => t.name), idle.map((t) => t.name));
      // Used, it is replaced by a fresh one once refreshes stop again.
      await new Promise((resolve) => setTimeout(resolve, POOL_IDLE_MS + 2000));
      const again = workerThreads(pid);
      assert.equal(again.length, 3, JSON.stringify(again));
      assert.notEqual(again[2].name, standby, JSON.stringify(again));
    } finally {
      client.close();
      await daemon.stop();
    }
  },
});

Deno.test({
  name:
    "daemon (real process): refreshing another repository first ends the parse Workers of one no longer refreshing",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const workspace = tempDirectory({ prefix: "sextant-ws-" });
    const alpha = fixtureRepository(sources(40));
    const beta = fixtureRepository(sources(30));
    Deno.writeTextFileSync(
      `${workspace}/sextant.yml`,
      `repositories:\n  - name: alpha\n    path: ${alpha}\n  - name: beta\n    path: ${beta}\n`,
    );
    const daemon = await startDaemon({ workspace, args: ["--query-workers", "1"] });
    const client = await DaemonClient.connect(daemon.socket);
    try {
      const pid = daemon.process.pid;
      // Threads at the refresh's priority: the refresh Worker, then the parse Workers.
      const parseWorkers = () =>
        workerThreads(pid).filter((t) => t.nice === REFRESH_NICE).length - 1;
      const alphaAnswer = await client.request("refresh", { repo: "alpha" }) as {
        data: { reports: { parsed: number }[] };
      };
      assert.equal(alphaAnswer.data.reports[0].parsed, 40);
      const afterAlpha = parseWorkers();
      assert.ok(afterAlpha >= 1, `alpha's parse Workers wait for more refreshes: ${afterAlpha}`);
      const betaAnswer = await client.request("refresh", { repo: "beta" }) as {
        data: { reports: { parsed: number }[] };
      };
      assert.equal(betaAnswer.data.reports[0].parsed, 30);
      // Only beta's Workers are left (a terminated thread leaves /proc within moments).
      let afterBeta = parseWorkers();
      for (let i = 0; i < 50 && afterBeta > 1; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        afterBeta = parseWorkers();
      }
      assert.equal(afterBeta, 1, JSON.stringify(workerThreads(pid)));
    } finally {
      client.close();
      await daemon.stop();
    }
  },
});
