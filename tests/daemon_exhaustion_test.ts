// Answers are untyped JSON read back from the socket.
// deno-lint-ignore-file no-explicit-any
/**
 * A daemon that cannot be exhausted: descriptors, connections, notifications,
 * buffered input. Each test runs a real daemon process on a real socket and
 * keeps its attack short (seconds).
 */
import assert from "node:assert/strict";
import { DaemonClient } from "../src/daemon/client.ts";
import { ErrorCode } from "../src/protocol/errors.ts";
import { fixtureRepository, startDaemon, within } from "./_helpers.ts";

const FILES = {
  "src/config.ts": "export function parseConfig(path: string): string {\n  return path;\n}\n",
  "src/retry.py": "def retry_with_backoff(call):\n    return call()\n",
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

async function connect(socket: string): Promise<Deno.UnixConn> {
  return await Deno.connect({ transport: "unix", path: socket });
}

/** Everything the daemon sends on a connection until it closes it or `ms` pass. */
async function drain(
  conn: Deno.UnixConn,
  ms: number,
  until?: (text: string) => boolean,
): Promise<{ frames: any[]; closed: boolean }> {
  const frames: any[] = [];
  let text = "";
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) =>
    timer = setTimeout(() => resolve("timeout"), ms)
  );
  const buffer = new Uint8Array(65536);
  try {
    while (true) {
      const n = await Promise.race([conn.read(buffer), timeout]);
      if (n === "timeout") break;
      if (n === null) {
        closed = true;
        break;
      }
      text += decoder.decode(buffer.subarray(0, n), { stream: true });
      if (until?.(text)) break;
    }
  } catch {
    closed = true;
  }
  clearTimeout(timer);
  for (const line of text.split("\n")) if (line.trim()) frames.push(JSON.parse(line));
  return { frames, closed };
}

async function writeAll(conn: Deno.UnixConn, bytes: Uint8Array): Promise<number> {
  let written = 0;
  try {
    while (written < bytes.length) written += await conn.write(bytes.subarray(written));
  } catch { /* the daemon closed it */ }
  return written;
}

function closeQuietly(conn: Deno.UnixConn): void {
  try {
    conn.close();
  } catch { /* closed */ }
}

function rssBytes(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

function alive(pid: number): boolean {
  try {
    Deno.statSync(`/proc/${pid}`);
    return !/State:\s+Z/.test(Deno.readTextFileSync(`/proc/${pid}/status`));
  } catch {
    return false;
  }
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

Deno.test("daemon (real socket): under a 256-descriptor limit, 300 idle connections neither kill the daemon nor shut out another client", async () => {
  const daemon = await startDaemon({
    workspace: fixtureRepository(FILES),
    launcher: ["prlimit", "--nofile=256"],
  });
  const idle: Deno.UnixConn[] = [];
  try {
    for (let i = 0; i < 300; i++) idle.push(await connect(daemon.socket));
    const client = await DaemonClient.connect(daemon.socket);
    const hello = await within(client.request("initialize", {}), 10_000, "initialize") as any;
    const cap = hello.limits.connections;
    // What the daemon held when it started (every Worker loaded), as its start trace says.
    const own = Number(/daemon\.start .*descriptors=(\d+)/.exec(daemon.stderr())?.[1]);
    assert.ok(own > 0, daemon.stderr().slice(0, 500));
    assert.ok(cap < 256 - own - 64, `${cap} connections leave no reserve beside ${own} held`);
    assert.ok(cap >= 64, `${cap} connections`);
    const status = await within(client.request("status"), 10_000, "status") as any;
    assert.equal(status.action, "status", "another client is served");
    // Those the daemon could not keep were told why, then closed; the rest are still open.
    const outcomes = await Promise.all(idle.map((conn) => drain(conn, 1500)));
    const refused = outcomes.filter((o) => o.closed);
    assert.ok(refused.length >= 300 - cap, `only ${refused.length} closed`);
    for (const { frames } of refused) {
      assert.equal(frames.length, 1, JSON.stringify(frames));
      assert.equal(frames[0].id, null);
      assert.equal(frames[0].error.code, ErrorCode.LimitExceeded);
      assert.match(frames[0].error.message, new RegExp(`${cap} connections|file descriptors`));
    }
    // With every connection slot taken, the daemon can still start Workers (a first refresh
    // starts the repository's parse Workers) and open its target in every Worker.
    const searched = await within(
      client.request("search", { query: "parseConfig", refresh: true }),
      30_000,
      "search with refresh",
    ) as any;
    assert.equal(
      searched.results[0]?.path,
      "src/config.ts",
      JSON.stringify(searched).slice(0, 300),
    );
    const grepped = await within(
      client.request("grep", { pattern: "retry_with_backoff($A)", language: "python" }),
      30_000,
      "grep",
    ) as any;
    assert.equal(grepped.action, "grep");
    const fds = [...Deno.readDirSync(`/proc/${daemon.process.pid}/fd`)].length;
    console.log(
      `300 idle connections under a 256-descriptor limit: cap ${cap} (the daemon held ${own} ` +
        `at start), ${refused.length} told and closed, ${300 - refused.length} kept, another ` +
        `client served with a refresh and a grep; the daemon holds ${fds} descriptors`,
    );
    assert.ok(fds <= 256 - 32, `${fds} descriptors held: no room left for a Worker`);
    assert.ok(alive(daemon.process.pid), "the daemon is still running");
    assert.equal((await client.request("status") as any).action, "status");
    client.close();
  } finally {
    for (const conn of idle) closeQuietly(conn);
    const status = await daemon.stop();
    assert.equal(status.code, 0, daemon.stderr());
    assert.doesNotMatch(daemon.stderr(), /panicked|Uncaught/);
  }
});

Deno.test("daemon (real socket): an accept error (no descriptor left) is logged and the daemon keeps accepting", async () => {
  const daemon = await startDaemon({ workspace: fixtureRepository(FILES) });
  const pid = daemon.process.pid;
  const first = await DaemonClient.connect(daemon.socket);
  const descriptors = () => [...Deno.readDirSync(`/proc/${pid}/fd`)].length;
  try {
    // Every Worker loaded and every target open, so only the accept lacks a descriptor.
    await first.request("search", { query: "parseConfig", refresh: true });
    await first.request("symbols", { query: "parseConfig" });
    await first.request("status");
    let open = descriptors();
    for (let stable = 0; stable < 5;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const now = descriptors();
      stable = now === open ? stable + 1 : 0;
      open = now;
    }
    // No descriptor left for the next accept: the kernel gives the lowest free number, so the
    // limit is that number (a descriptor closed earlier leaves a hole below the count).
    const used = new Set(
      [...Deno.readDirSync(`/proc/${pid}/fd`)].map((entry) => Number(entry.name)),
    );
    let lowestFree = 0;
    while (used.has(lowestFree)) lowestFree++;
    const squeeze = new Deno.Command("prlimit", {
      args: ["--pid", String(pid), `--nofile=${lowestFree}:20000`],
    }).outputSync();
    assert.ok(squeeze.success, decoder.decode(squeeze.stderr));
    const second = await connect(daemon.socket);
    await writeAll(second, encoder.encode('{"jsonrpc":"2.0","id":1,"method":"status"}\n'));
    // Give the failing accept a moment, then give descriptors back.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const relieve = new Deno.Command("prlimit", {
      args: ["--pid", String(pid), "--nofile=20000:20000"],
    }).outputSync();
    assert.ok(relieve.success, decoder.decode(relieve.stderr) + daemon.stderr());
    const { frames } = await drain(second, 5000, (text) => text.includes("\n"));
    const answer = frames.find((frame) => frame.id === 1);
    assert.equal(answer?.result?.action, "status", JSON.stringify(frames).slice(0, 300));
    closeQuietly(second);
    assert.ok(alive(pid));
    assert.match(daemon.stderr(), /accept\.failed/);
    const third = await DaemonClient.connect(daemon.socket);
    assert.equal((await third.request("status") as any).action, "status");
    third.close();
  } finally {
    first.close();
    await daemon.stop();
  }
});

Deno.test("daemon (real socket): a connection idle past --idle-timeout is told so and closed; a busy one stays", async () => {
  const daemon = await startDaemon({
    workspace: fixtureRepository(FILES),
    args: ["--idle-timeout", "1"],
  });
  try {
    const client = await DaemonClient.connect(daemon.socket);
    const hello = await client.request("initialize", {}) as any;
    assert.equal(hello.limits.idle_ms, 1000);
    const idle = await connect(daemon.socket);
    // Bytes of an unfinished frame are not activity: only finished frames are.
    await writeAll(idle, encoder.encode('{"jsonrpc":"2.0","id":1,"meth'));
    const busy = await DaemonClient.connect(daemon.socket);
    const started = Date.now();
    const keeping = (async () => {
      while (Date.now() - started < 2200) {
        await busy.request("status");
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    })();
    const { frames, closed } = await drain(idle, 4000);
    assert.ok(closed, "the idle connection was closed");
    assert.ok(Date.now() - started >= 900, "not before the timeout");
    assert.equal(frames[0]?.id, null);
    assert.equal(frames[0]?.error?.code, ErrorCode.LimitExceeded);
    assert.match(frames[0].error.message, /idle/);
    await keeping;
    assert.equal((await busy.request("status") as any).action, "status", "the busy one stayed");
    closeQuietly(idle);
    busy.close();
    client.close();
  } finally {
    await daemon.stop();
  }
});

/** A tree where a search does some work, with words no query shares (no answer is cached). */
function floodTree(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) {
    files[`pkg/module_${i}.py`] = Array.from(
      { length: 30 },
      (_, j) =>
        `def handler_${i}_${j}(request, retry_count=${j}):\n    """Handles widget ${i} gadget ${j} with backoff and retry."""\n    return request.widget_${
          (i * j) % 97
        }\n`,
    ).join("\n");
  }
  return files;
}

Deno.test("daemon (real socket): 1,500 search notifications count towards the in-flight cap, do not starve another client, and stop when their sender leaves", async () => {
  const daemon = await startDaemon({ workspace: fixtureRepository(floodTree()) });
  const other = await DaemonClient.connect(daemon.socket);
  try {
    await other.request("refresh", {});
    const timed = async (label: string, count: number): Promise<number[]> => {
      const samples: number[] = [];
      for (let i = 0; i < count; i++) {
        const started = performance.now();
        await other.request("search", { query: `widget gadget ${label} ${i} backoff` });
        samples.push(performance.now() - started);
      }
      return samples;
    };
    await timed("warm", 5);
    const before = await timed("before", 20);
    const flooder = await connect(daemon.socket);
    const flood = Array.from(
      { length: 1500 },
      (_, i) =>
        JSON.stringify({
          jsonrpc: "2.0",
          method: "search",
          params: { query: `retry handler flood${i} widget` },
        }) + "\n",
    ).join("");
    await writeAll(flooder, encoder.encode(flood));
    const during = await timed("during", 20);
    closeQuietly(flooder);
    const figures = {
      before_p50_ms: Math.round(percentile(before, 50)),
      before_p99_ms: Math.round(percentile(before, 99)),
      during_p50_ms: Math.round(percentile(during, 50)),
      during_p99_ms: Math.round(percentile(during, 99)),
    };
    console.log(
      `another client's search under a 1,500-notification flood: ${JSON.stringify(figures)}`,
    );
    assert.ok(
      figures.during_p99_ms < 1500 + 10 * figures.before_p99_ms,
      `starved: ${JSON.stringify(figures)}`,
    );
    // The notifications past the cap were refused (counted), and the rest stop with their sender.
    const status = await other.request("status") as any;
    assert.ok(status.data.daemon.errors.IndexBusy >= 1000, JSON.stringify(status.data.daemon));
    const ran = () =>
      daemon.stderr().split("\n").filter((line) => /method=search id=null/.test(line)).length;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const settled = ran();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(ran(), settled, "no notification runs after its sender left");
    // Each one ran, was refused at the cap, or was dropped when its sender left. More than the
    // cap may run in all when one finishes while the flood is still being read (65 seen under a
    // loaded machine), never past what was not refused.
    const refused = status.data.daemon.errors.IndexBusy as number;
    assert.ok(settled + refused <= 1500, `${settled} ran, ${refused} refused`);
  } finally {
    other.close();
    await daemon.stop();
  }
});

Deno.test("daemon (real socket): 50 connections each holding an 8 MiB partial frame stay within the global input budget", async () => {
  const daemon = await startDaemon({ workspace: fixtureRepository(FILES) });
  const pid = daemon.process.pid;
  const client = await DaemonClient.connect(daemon.socket);
  const attackers: Deno.UnixConn[] = [];
  try {
    const hello = await client.request("initialize", {}) as any;
    const budget = hello.limits.buffered_bytes;
    assert.equal(budget, 32 * 1024 * 1024);
    await client.request("status");
    const baseline = rssBytes(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 20);
    const partial = new Uint8Array(8 * 1024 * 1024 - 1024).fill(0x61);
    partial.set(encoder.encode('{"jsonrpc":"2.0","id":1,"method":"search","params":{"query":"'));
    for (let i = 0; i < 50; i++) attackers.push(await connect(daemon.socket));
    const outcomes = await Promise.all(attackers.map(async (conn) => {
      const reading = drain(conn, 4000);
      await writeAll(conn, partial);
      return await reading;
    }));
    clearInterval(sampler);
    peak = Math.max(peak, rssBytes(pid));
    const growthMiB = Math.round((peak - baseline) / (1024 * 1024));
    console.log(
      `RSS under 50 partial 8 MiB frames: baseline ${
        Math.round(baseline / (1024 * 1024))
      } MiB, peak ${Math.round(peak / (1024 * 1024))} MiB (+${growthMiB} MiB)`,
    );
    assert.ok(growthMiB < 200, `RSS grew by ${growthMiB} MiB`);
    const refused = outcomes.filter((o) => o.closed);
    assert.ok(refused.length >= 50 - budget / partial.length - 1, `${refused.length} refused`);
    for (const { frames } of refused) {
      assert.equal(frames[0]?.id, null, JSON.stringify(frames));
      assert.equal(frames[0]?.error?.code, ErrorCode.LimitExceeded);
    }
    assert.equal((await client.request("status") as any).action, "status");
  } finally {
    for (const conn of attackers) closeQuietly(conn);
    client.close();
    await daemon.stop();
  }
});

Deno.test("daemon (real socket): an oversized frame is answered LimitExceeded (id null) before the connection closes", async () => {
  const daemon = await startDaemon({ workspace: fixtureRepository(FILES) });
  try {
    const conn = await connect(daemon.socket);
    const reading = drain(conn, 10_000);
    await writeAll(conn, new Uint8Array(8 * 1024 * 1024 + 4096).fill(0x61));
    const { frames, closed } = await reading;
    assert.ok(closed);
    assert.equal(frames.length, 1, JSON.stringify(frames));
    assert.equal(frames[0].id, null);
    assert.equal(frames[0].error.code, ErrorCode.LimitExceeded);
    assert.match(frames[0].error.message, /8388608 bytes/);
    closeQuietly(conn);
  } finally {
    await daemon.stop();
  }
});

Deno.test("daemon (real socket): requests sent before a client half-closes are answered, then the connection closes", async () => {
  const daemon = await startDaemon({ workspace: fixtureRepository(FILES) });
  try {
    const conn = await connect(daemon.socket);
    const requests = [
      { jsonrpc: "2.0", id: 1, method: "refresh", params: {} },
      { jsonrpc: "2.0", id: 2, method: "symbols", params: { query: "parseConfig" } },
      { jsonrpc: "2.0", id: 3, method: "status" },
    ].map((request) => JSON.stringify(request) + "\n").join("");
    await writeAll(conn, encoder.encode(requests));
    await conn.closeWrite();
    const { frames, closed } = await drain(conn, 20_000);
    assert.ok(closed, "closed after the answers");
    const answers = frames.filter((frame) => "id" in frame);
    assert.deepEqual(answers.map((frame) => frame.id).sort(), [1, 2, 3]);
    for (const answer of answers) assert.ok(answer.result, JSON.stringify(answer).slice(0, 300));
    closeQuietly(conn);
  } finally {
    await daemon.stop();
  }
});
