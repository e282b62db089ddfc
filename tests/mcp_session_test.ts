// Tool results and raw frames are untyped JSON read back from the server.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { basename } from "node:path";
import { fixtureRepository, startDaemon, tempCache } from "./_helpers.ts";
import { mcpCommandLine, mcpEnvironment, startMcp, textOf } from "./_mcp_client.ts";

/** A repository big enough that its first index takes a while (and reports parse progress). */
function bigRepository(files = 1200): string {
  const content: Record<string, string> = {};
  for (let i = 0; i < files; i++) {
    content[`pkg${i % 20}/mod${i}.py`] = `def func_${i}(x):
    return helper_${i}(x) + 1


def helper_${i}(y):
    """Helper ${i}."""
    return y * ${i}
`;
  }
  return fixtureRepository(content);
}

interface Step {
  progress: number;
  total?: number;
  message?: string;
}

Deno.test("mcp (real process): a refresh reports MCP progress that only grows", async () => {
  const root = bigRepository();
  const session = await startMcp(["--workspace", root]);
  try {
    const steps: Step[] = [];
    const result = await session.client.callTool({ name: "refresh", arguments: {} }, undefined, {
      onprogress: (step) => steps.push(step),
      resetTimeoutOnProgress: true,
    }) as any;
    assert.ok(!result.isError, textOf(result));
    assert.equal(result.structuredContent.data.reports[0].plan.add, 1200);
    assert.ok(steps.length >= 3, JSON.stringify(steps));
    for (let i = 1; i < steps.length; i++) {
      assert.ok(steps[i].progress > steps[i - 1].progress, JSON.stringify(steps));
    }
    assert.ok(steps.every((step) => step.total === 1000 && step.progress <= 1000));
    const repo = basename(root);
    assert.ok(steps.every((step) => step.message?.startsWith(`${repo}: `)), JSON.stringify(steps));
    assert.ok(steps.some((step) => /: parse \d+\/1200$/.test(step.message ?? "")));
  } finally {
    await session.close();
  }
});

Deno.test("mcp (real process): a cancelled call ends at once, the refresh goes on, the next call answers", async () => {
  const root = bigRepository();
  const session = await startMcp(["--workspace", root]);
  try {
    const controller = new AbortController();
    const cancelled = session.client.callTool({ name: "refresh", arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: (step) => {
        if (step.message?.includes(": parse ")) controller.abort("the test cancels");
      },
    });
    await assert.rejects(cancelled);
    await session.waitForLog(/mcp\.call tool=refresh .*outcome=RequestCancelled/);
    // The request ended before its refresh did; the refresh itself completes (single flight).
    await session.waitForLog(/ refresh repo=.* generation=1 changed=true/);
    const log = session.stderr();
    assert.ok(
      log.indexOf("outcome=RequestCancelled") < log.indexOf(" refresh repo="),
      `the cancellation was answered before the refresh ended:\n${log}`,
    );
    const after = await session.client.callTool({
      name: "symbols",
      arguments: { query: "func_7" },
    }) as any;
    assert.ok(!after.isError, textOf(after));
    assert.equal(after.structuredContent.results[0].symbol, "pkg7.mod7.func_7");
  } finally {
    await session.close();
  }
});

Deno.test("mcp (real process): malformed input gets JSON-RPC errors and the server answers the next call", async () => {
  const root = fixtureRepository({ "a.py": "def alpha():\n    return 1\n" });
  const { command, args } = mcpCommandLine(["--workspace", root]);
  const child = new Deno.Command(command, {
    args,
    env: mcpEnvironment(),
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const send = (line: string) => writer.write(new TextEncoder().encode(line + "\n"));
  const frames: any[] = [];
  const reading = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        frames.push(JSON.parse(buffer.slice(0, newline)));
        buffer = buffer.slice(newline + 1);
      }
    }
  })();
  const frame = async (predicate: (frame: any) => boolean) => {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const found = frames.find(predicate);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no such frame in ${JSON.stringify(frames)}`);
  };
  try {
    await send(JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "raw", version: "0" },
      },
    }));
    await frame((f) => f.id === 1 && f.result);
    await send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));

    await send("this is not json {");
    const parse = await frame((f) => f.error?.code === -32700);
    assert.equal(parse.id, null);
    await send(JSON.stringify({ hello: "world" }));
    const invalid = await frame((f) => f.error?.code === -32600);
    assert.equal(invalid.id, null);
    await send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "no/such/method" }));
    assert.equal((await frame((f) => f.id === 2)).error.code, -32601);
    await send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: {} }));
    assert.equal((await frame((f) => f.id === 3)).error.code, -32602);
    await send(JSON.stringify({
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "no_such_tool", arguments: {} },
    }));
    const unknown = await frame((f) => f.id === 4);
    assert.equal(unknown.error.code, -32602);
    assert.match(unknown.error.message, /Unknown tool 'no_such_tool'/);
    await send(JSON.stringify({
      jsonrpc: "2.0",
      id: 5,
      method: "tools/call",
      params: { name: "symbols", arguments: { query: ["not", "a", "string"] } },
    }));
    const bad = await frame((f) => f.id === 5);
    assert.equal(bad.result.isError, true);
    assert.equal(bad.result.content[0].text, "'symbols' parameter 'query' must be a string");

    await send(JSON.stringify({
      jsonrpc: "2.0",
      id: 6,
      method: "tools/call",
      params: { name: "symbols", arguments: { query: "alpha" } },
    }));
    const good = await frame((f) => f.id === 6);
    assert.ok(!good.result.isError, JSON.stringify(good));
    assert.equal(good.result.structuredContent.results[0].path, "a.py");
    assert.match(good.result.content[0].text, /^a\.py:1: function a\.alpha/);
  } finally {
    await writer.close().catch(() => {});
    const status = await child.status;
    await reading;
    assert.equal(status.code, 0, "stdin closed: the server ends cleanly");
  }
});

Deno.test("mcp (real process): forwards to the daemon serving the workspace (progress, cancellation), and runs embedded once it stops", async () => {
  const root = bigRepository(800);
  const cache = tempCache();
  const daemon = await startDaemon({ workspace: root, cache });
  let session;
  try {
    session = await startMcp(["--workspace", root, "--socket", daemon.socket], {
      env: mcpEnvironment({ SEXTANT_CACHE_DIR: cache }),
    });
    await session.waitForLog(/mcp\.start .*mode=daemon/);

    const controller = new AbortController();
    const cancelled = session.client.callTool({ name: "refresh", arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: (step) => {
        if (step.message?.includes(": parse ")) controller.abort("the test cancels");
      },
    });
    await assert.rejects(cancelled);
    // The daemon heard `$/cancelRequest` for its request.
    const deadline = Date.now() + 30_000;
    while (!/method=refresh .*outcome=RequestCancelled/.test(daemon.stderr())) {
      assert.ok(Date.now() < deadline, daemon.stderr());
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    const steps: Step[] = [];
    const refreshed = await session.client.callTool(
      { name: "refresh", arguments: {} },
      undefined,
      { onprogress: (step) => steps.push(step), resetTimeoutOnProgress: true },
    ) as any;
    assert.ok(!refreshed.isError, textOf(refreshed));
    assert.ok(steps.length >= 1, "the daemon's $/progress arrives as MCP progress");

    const symbols = await session.client.callTool({
      name: "symbols",
      arguments: { query: "helper_42" },
    }) as any;
    assert.equal(symbols.structuredContent.results[0].path, "pkg2/mod42.py");
    assert.match(daemon.stderr(), /method=symbols /);
    await session.waitForLog(/mcp\.call tool=symbols mode=daemon .*outcome=ok/);

    await daemon.stop();
    const alone = await session.client.callTool({
      name: "symbols",
      arguments: { query: "helper_43" },
    }) as any;
    assert.ok(!alone.isError, textOf(alone));
    assert.equal(alone.structuredContent.results[0].path, "pkg3/mod43.py");
    await session.waitForLog(/mcp\.call tool=symbols mode=embedded .*outcome=ok/);
  } finally {
    await session?.close();
    await daemon.stop();
  }
});
