// Answers are untyped JSON read back from the socket.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { DaemonClient, RpcFailure } from "../src/daemon/client.ts";
import { ErrorCode } from "../src/protocol/errors.ts";
import { METHODS } from "../src/protocol/methods.ts";
import { fixtureRepository, rawExchange, startDaemon } from "./_helpers.ts";

const FILES = {
  "src/retry.py":
    'def retry_with_backoff(call, attempts=3):\n    """Retry a call with exponential backoff."""\n    return call()\n\n\ndef main():\n    return retry_with_backoff(print)\n',
  "src/config.ts": "export function parseConfig(path: string): string {\n  return path;\n}\n",
  "README.md": "# Demo\n\nHow retry backoff works.\n",
};

/** The main argument every action needs, so that each can be called generically. */
function minimalParams(method: string): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [field, spec] of Object.entries(METHODS[method].params)) {
    if (!spec.required) continue;
    params[field] = spec.type === "string"
      ? "retry_with_backoff"
      : spec.type === "integer"
      ? 1
      : [];
  }
  if ("symbol" in METHODS[method].params) params.symbol = "retry_with_backoff";
  return params;
}

const UNITS: Record<string, number> = { MiB: 1024 * 1024, KiB: 1024, s: 1000, bytes: 1 };
const LIMIT_ROW = /^\|[^|]+\| `([a-z_]+)` +\| (\d+(?: \d{3})*) ?(MiB|KiB|s|bytes)?\b.*\|$/gm;

/** The limits table of docs/protocol.md as `initialize` should return it: key → number. */
function documentedLimits(): Record<string, number> {
  const text = Deno.readTextFileSync(new URL("../docs/protocol.md", import.meta.url));
  const limits: Record<string, number> = {};
  for (const [, key, value, unit] of text.matchAll(LIMIT_ROW)) {
    limits[key] = Number(value.replaceAll(" ", "")) * (UNITS[unit] ?? 1);
  }
  return limits;
}

async function expectFailure(promise: Promise<unknown>, code: number): Promise<RpcFailure> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RpcFailure, `${error}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected error ${code}`);
}

Deno.test("daemon (real socket): handshake, every action, batches, notifications", async (t) => {
  const root = fixtureRepository(FILES);
  const daemon = await startDaemon({ workspace: root });
  const client = await DaemonClient.connect(daemon.socket);
  try {
    await t.step(
      "initialize returns server info, protocol version, repositories, actions",
      async () => {
        const hello = await client.request("initialize", { agent: "tester" }) as Record<
          string,
          any
        >;
        assert.equal(hello.server.name, "sextant");
        assert.equal(hello.protocol_version, "1");
        assert.equal(hello.agent, "tester");
        assert.deepEqual(hello.repositories.map((r: { name: string }) => r.name), [
          root.split("/").at(-1),
        ]);
        assert.deepEqual([...hello.actions].sort(), Object.keys(METHODS).sort());
        assert.equal(hello.workspace.root, root);
        // Every limit the daemon enforces, each as docs/protocol.md documents it.
        const documented = documentedLimits();
        assert.ok(Object.keys(documented).length >= 13, JSON.stringify(documented));
        assert.deepEqual(hello.limits, documented);
      },
    );

    await t.step("refresh through the socket sends $/progress with the plan counts", async () => {
      const events: Record<string, unknown>[] = [];
      const envelope = await client.request("refresh", {}, {
        onProgress: (p) => events.push(p),
      }) as Record<string, any>;
      assert.equal(envelope.action, "refresh");
      assert.equal(envelope.data.reports[0].plan.add, 3);
      const last = events.at(-1)!;
      assert.equal(last.phase, "done");
      assert.deepEqual((last.plan as Record<string, number>).add, 3);
      assert.ok(events.some((e) => e.phase === "parse"));
    });

    await t.step(
      "every action answers through the socket with an envelope or a wire error",
      async () => {
        for (const method of Object.keys(METHODS)) {
          try {
            const envelope = await client.request(method, minimalParams(method)) as Record<
              string,
              any
            >;
            assert.equal(envelope.action, method);
            assert.ok(Array.isArray(envelope.results), method);
            assert.equal(typeof envelope.provenance.backend, "string", method);
            assert.match(envelope.trace_id, /^[0-9a-f]+$/, method);
          } catch (error) {
            assert.ok(error instanceof RpcFailure, `${method}: ${error}`);
            assert.notEqual(error.code, ErrorCode.InternalError, `${method}: ${error.message}`);
          }
        }
        const symbols = await client.request("symbols", { query: "parseConfig" }) as Record<
          string,
          any
        >;
        assert.equal(symbols.results[0].path, "src/config.ts");
        const search = await client.request("search", { query: "exponential backoff" }) as Record<
          string,
          any
        >;
        assert.ok(search.results.some((hit: { path: string }) => hit.path === "src/retry.py"));
        // After the rebuild above replaced the target file, readers (in Workers too) see the new one.
        Deno.writeTextFileSync(
          `${root}/src/late.ts`,
          "export function lateArrival(): number {\n  return 1;\n}\n",
        );
        await client.request("refresh", {});
        const late = await client.request("symbols", { query: "lateArrival" }) as Record<
          string,
          any
        >;
        assert.equal(late.results[0]?.path, "src/late.ts");
        Deno.removeSync(`${root}/src/late.ts`);
        await client.request("refresh", {});
        const status = await client.request("status") as Record<string, any>;
        assert.equal(status.data.repositories[0].files, 3);
        assert.ok(status.data.daemon.requests >= 3);
        assert.ok("hits" in status.data.daemon.cache);
      },
    );

    await t.step(
      "repeated identical queries over an unchanged generation hit the cache",
      async () => {
        const before = (await client.request("status") as any).data.daemon.cache.hits;
        await client.request("symbols", { query: "main" });
        await client.request("symbols", { query: "main" });
        const after = (await client.request("status") as any).data.daemon.cache.hits;
        assert.equal(after, before + 1);
      },
    );

    await t.step(
      "a batch answers each request, skips notifications, reports bad members",
      async () => {
        const frames = await rawExchange(
          daemon.socket,
          JSON.stringify([
            { jsonrpc: "2.0", id: 1, method: "symbols", params: { query: "parseConfig" } },
            { jsonrpc: "2.0", method: "status" },
            { jsonrpc: "2.0", id: "two", method: "status" },
            { id: 3, method: "status" },
            42,
          ]) + "\n",
        );
        const batch = frames[0] as Record<string, any>[];
        assert.ok(Array.isArray(batch));
        assert.equal(batch.length, 4);
        const byId = new Map<unknown, any>(batch.map((r) => [r.id, r]));
        assert.equal(byId.get(1).result.results[0].symbol, "src/config.parseConfig");
        assert.equal(byId.get("two").result.action, "status");
        assert.equal(byId.get(3).error.code, ErrorCode.InvalidRequest);
        assert.equal(byId.get(null).error.code, ErrorCode.InvalidRequest);
        const empty = await rawExchange(daemon.socket, "[]\n");
        assert.equal((empty[0] as any).error.code, ErrorCode.InvalidRequest);
      },
    );

    await t.step("notifications get no answer; the next request's answer comes first", async () => {
      const frames = await rawExchange(
        daemon.socket,
        '{"jsonrpc":"2.0","method":"status"}\n[{"jsonrpc":"2.0","method":"status"}]\n' +
          '{"jsonrpc":"2.0","method":"no/such"}\n{"jsonrpc":"2.0","id":9,"method":"status"}\n',
      );
      assert.equal((frames[0] as any).id, 9);
    });

    await t.step("bad input gets its JSON-RPC error", async () => {
      const one = async (line: string) => (await rawExchange(daemon.socket, line + "\n"))[0] as any;
      assert.equal((await one("not json")).error.code, ErrorCode.ParseError);
      assert.equal((await one("\xff\xfe garbage")).error.code, ErrorCode.ParseError);
      assert.equal((await one('{"hello":1}')).error.code, ErrorCode.InvalidRequest);
      assert.equal(
        (await one('{"jsonrpc":"1.0","id":1,"method":"status"}')).error.code,
        ErrorCode.InvalidRequest,
      );
      assert.equal(
        (await one('{"jsonrpc":"2.0","id":1,"method":"status","params":3}')).error.code,
        ErrorCode.InvalidRequest,
      );
      await expectFailure(client.request("teleport", {}), ErrorCode.MethodNotFound);
      await expectFailure(client.request("search", { query: 7 }), ErrorCode.InvalidParams);
      await expectFailure(client.request("search", {}), ErrorCode.InvalidParams);
      await expectFailure(
        client.request("search", { query: "x", bogus: 1 }),
        ErrorCode.InvalidParams,
      );
      await expectFailure(client.request("search", ["x"]), ErrorCode.InvalidParams);
      await expectFailure(
        client.request("search", { query: "x", limit: 10_000_000 }),
        ErrorCode.LimitExceeded,
      );
      await expectFailure(
        client.request("callers", { symbol: "x", depth: 1e9 }),
        ErrorCode.LimitExceeded,
      );
      await expectFailure(
        client.request("search", { query: "x".repeat(200_000) }),
        ErrorCode.LimitExceeded,
      );
      await expectFailure(
        client.request("search", { query: "x", paths: ["../etc/**"] }),
        ErrorCode.PathRejected,
      );
      await expectFailure(
        client.request("search", { query: "x", paths: ["/etc/**"] }),
        ErrorCode.PathRejected,
      );
      await expectFailure(
        client.request("definition", { path: "../../etc/passwd", line: 1 }),
        ErrorCode.PathRejected,
      );
      await expectFailure(
        client.request("definition", { path: "/etc/passwd", line: 1 }),
        ErrorCode.PathRejected,
      );
      await expectFailure(
        client.request("status", { repo: "no-such-repo" }),
        ErrorCode.RepositoryNotFound,
      );
      const deep = "[".repeat(100_000) + "]".repeat(100_000);
      assert.equal((await one(deep)).error.code, ErrorCode.LimitExceeded);
      const wide = JSON.stringify(
        Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "status" })),
      );
      assert.equal((await one(wide)).error.code, ErrorCode.LimitExceeded);
    });

    await t.step("a frame over the limit closes only that connection", async () => {
      const conn = await Deno.connect({ transport: "unix", path: daemon.socket });
      const block = new Uint8Array(1 << 20).fill(0x61);
      let sent = 0;
      try {
        while (sent < 100 * (1 << 20)) sent += await conn.write(block);
      } catch { /* closed by the daemon */ }
      assert.ok(sent < 100 * (1 << 20), "the daemon hung up before 100 MB");
      try {
        conn.close();
      } catch { /* closed */ }
      const half = await Deno.connect({ transport: "unix", path: daemon.socket });
      await half.write(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"meth'));
      half.close();
      const status = await client.request("status") as Record<string, any>;
      assert.equal(status.action, "status");
    });
  } finally {
    client.close();
    const status = await daemon.stop();
    assert.equal(status.code, 0, daemon.stderr());
  }
});

Deno.test("daemon (real socket): cancelling a long request answers RequestCancelled; others go on", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 800; i++) {
    files[`pkg/m${i}.py`] = `def function_${i}(x):\n    return x + ${i}\n`.repeat(30);
  }
  const daemon = await startDaemon({ workspace: fixtureRepository(files) });
  const client = await DaemonClient.connect(daemon.socket);
  const other = await DaemonClient.connect(daemon.socket);
  try {
    const id = client.nextId;
    let started!: () => void;
    const parsing = new Promise<void>((resolve) => (started = resolve));
    const long = client.request("refresh", {}, {
      onProgress: (p) => p.phase === "parse" && started(),
    });
    await parsing;
    const status = await other.request("status") as Record<string, any>;
    assert.equal(status.data.repositories[0].refreshing, true, "answered while the refresh runs");
    await client.notify("$/cancelRequest", { id });
    await expectFailure(long, ErrorCode.RequestCancelled);
    const after = await client.request("status") as Record<string, any>;
    assert.equal(after.action, "status");
  } finally {
    client.close();
    other.close();
    await daemon.stop();
  }
});

Deno.test("daemon (real socket): 1,000+ malformed frames from several connections, then correct answers", async () => {
  const root = fixtureRepository(FILES);
  const daemon = await startDaemon({ workspace: root });
  try {
    const random = seeded(7);
    const bad = (): string => {
      const kinds = [
        () =>
          "#" + Array.from(
            { length: 1 + Math.floor(random() * 40) },
            () => String.fromCharCode(Math.floor(random() * 256)),
          ).join("").replaceAll("\n", " "),
        () =>
          '{"jsonrpc":"2.0","id":' + Math.floor(random() * 1e6) +
          ',"method":"search","params":{"query":' + Math.floor(random() * 9) + "}}",
        () => '{"jsonrpc":"2.0","id":1,"method":"' + "x".repeat(Math.floor(random() * 20)) + '"}',
        () => '{"jsonrpc":"2.0","id":[1],"method":"status"}',
        () =>
          '{"jsonrpc":"2.0","id":2,"method":"symbols","params":{"query":"a","limit":-' +
          Math.floor(random() * 9) + "}}",
        () =>
          '{"jsonrpc":"2.0","id":3,"method":"search","params":{"query":"a","paths":["../' +
          Math.floor(random() * 9) + '"]}}',
        () => "[" + "{".repeat(Math.floor(random() * 10)),
        () => "null",
        () => '"just a string"',
        () => '{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"agent":5}}',
      ];
      return kinds[Math.floor(random() * kinds.length)]();
    };
    const connections = 5;
    const perConnection = 220;
    const answers = await Promise.all(Array.from({ length: connections }, () => {
      const lines = Array.from({ length: perConnection }, bad).join("\n") + "\n";
      return rawExchange(daemon.socket, lines, { frames: perConnection, ms: 20_000 });
    }));
    const frames = answers.flat() as Record<string, any>[];
    assert.ok(frames.length >= 1000, `got ${frames.length} answers`);
    for (const frame of frames) {
      const errors = Array.isArray(frame) ? frame.map((f) => f.error) : [frame.error];
      for (const error of errors) {
        if (error) assert.notEqual(error.code, ErrorCode.InternalError, error.message);
      }
    }
    const client = await DaemonClient.connect(daemon.socket);
    const symbols = await client.request("symbols", { query: "parseConfig", refresh: true }) as any;
    assert.equal(symbols.results[0].path, "src/config.ts");
    client.close();
  } finally {
    const status = await daemon.stop();
    assert.equal(status.code, 0);
  }
});

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}
