/** pyright-langserver as a routed backend on a small Python repository (real process). */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { LspAnswer, RouteResult } from "../src/lsp/mod.ts";
import {
  eventually,
  processAlive,
  PYTHON_FILES,
  pythonServer,
  repository,
  withLsp,
  writeExecutable,
} from "./lsp_fixture.ts";
import { tempDirectory } from "./_helpers.ts";

function answered(result: RouteResult): LspAnswer {
  if (!result.ok) throw new Error(`expected an answer, got ${result.reason}: ${result.message}`);
  return result;
}

function sites(answer: LspAnswer): string[] {
  return answer.hits.map((hit) => `${hit.path}:${hit.start_line}:${hit.start_column}`).sort();
}

Deno.test("pyright answers definition, references, callers, callees and symbols, mapped onto the committed snapshot (real process)", async (t) => {
  const root = repository(PYTHON_FILES);
  await withLsp({ repositories: { app: root }, lsp: { python: pythonServer() } }, async (lsp) => {
    const request = lsp.request("app", "python");

    await t.step(
      "definition of a use leads to the def line with its committed snippet",
      async () => {
        const answer = answered(
          await lsp.router.definition(request, { path: "pkg/main.py", line: 5, column: 13 }),
        );
        assert.deepEqual(answer.backend, "lsp:python");
        assert.deepEqual(answer.confidence, "exact");
        assert.deepEqual(answer.fresh, true);
        assert.deepEqual(answer.hits.length, 1);
        const hit = answer.hits[0];
        assert.deepEqual([hit.repo, hit.path, hit.start_line, hit.start_column], [
          "app",
          "pkg/util.py",
          1,
          5,
        ]);
        assert.deepEqual(hit.symbol, "helper");
        assert.deepEqual(hit.snippet, "def helper(x):");
        assert.deepEqual(hit.backend, "lsp:python");
        assert.deepEqual(hit.confidence, "exact");
        assert.deepEqual(hit.source_kind, "local");
      },
    );

    await t.step("references list every use (the import and both calls)", async () => {
      const answer = answered(
        await lsp.router.references(request, { path: "pkg/util.py", line: 1, column: 5 }),
      );
      assert.deepEqual(sites(answer), [
        "pkg/main.py:12:12",
        "pkg/main.py:1:22",
        "pkg/main.py:5:13",
      ]);
      assert.ok(answer.hits.every((hit) => hit.kind === "reference" && hit.symbol === "helper"));
      assert.deepEqual(
        answer.hits.find((hit) => hit.start_line === 5)?.snippet,
        "    value = helper(3)",
      );
    });

    await t.step("callers name the calling functions at their call sites", async () => {
      const answer = answered(
        await lsp.router.callers(request, { path: "pkg/util.py", line: 1, column: 5 }),
      );
      assert.deepEqual(
        answer.hits.map((hit) => `${hit.symbol}@${hit.path}:${hit.start_line}`).sort(),
        ["other@pkg/main.py:12", "run@pkg/main.py:5"],
      );
      assert.ok(answer.hits.every((hit) => hit.relation === "calls" && hit.direction === "in"));
    });

    await t.step(
      "callees keep the repository's functions and count the rest as outside",
      async () => {
        const answer = answered(
          await lsp.router.callees(request, { path: "pkg/main.py", line: 4, column: 5 }),
        );
        assert.deepEqual(answer.hits.map((hit) => hit.symbol).sort(), [
          "Greeter",
          "greet",
          "helper",
        ]);
        const greet = answer.hits.find((hit) => hit.symbol === "greet")!;
        assert.deepEqual((greet.node as { path: string }).path, "pkg/util.py");
        // print() is defined by the runtime's stubs, outside the repository.
        assert.ok(answer.dropped.outside_root >= 1);
      },
    );

    await t.step("workspace symbols find a class and its method", async () => {
      const answer = answered(await lsp.router.workspaceSymbols(request, "Greet"));
      assert.deepEqual(
        answer.hits.map((hit) => `${hit.symbol}:${hit.kind}:${hit.start_line}`).sort(),
        ["Greeter.greet:method:6", "Greeter:class:5"],
      );
    });

    await t.step("status reports a ready server with its timings", () => {
      const status = lsp.status("app", "python");
      assert.deepEqual(status.state, "ready");
      assert.deepEqual(status.profile, "pyright");
      assert.ok(status.pid !== null && processAlive(status.pid));
      assert.ok(status.ready_ms !== null && status.start_ms !== null);
      assert.deepEqual(status.requests, status.answered);
      assert.ok(status.answered >= 6);
    });

    await t.step(
      "an edited file is fresh: false and its lines map back to the committed text",
      async () => {
        Deno.writeTextFileSync(
          join(root, "pkg/util.py"),
          "import os\n\n\n" + PYTHON_FILES["pkg/util.py"],
        );
        const answer = answered(
          await lsp.router.definition(request, { path: "pkg/main.py", line: 5, column: 13 }),
        );
        assert.deepEqual(answer.fresh, false);
        const hit = answer.hits[0];
        assert.deepEqual(hit.fresh, false);
        // The server read line 4 of the working tree; the committed text has it on line 1.
        assert.deepEqual([hit.path, hit.start_line, hit.snippet], [
          "pkg/util.py",
          1,
          "def helper(x):",
        ]);
        // The unchanged file that was asked about stays fresh.
        const references = answered(
          await lsp.router.references(request, { path: "pkg/main.py", line: 4, column: 5 }),
        );
        assert.ok(references.hits.every((h) => h.path === "pkg/main.py" && h.fresh === true));
      },
    );
  });
});

Deno.test("a pyright killed mid-request gives a crashed fallback, then answers again after its restart (real process)", async () => {
  const root = repository(PYTHON_FILES);
  await withLsp({ repositories: { app: root }, lsp: { python: pythonServer() } }, async (lsp) => {
    const request = lsp.request("app", "python");
    const at = { path: "pkg/util.py", line: 1, column: 5 };
    answered(await lsp.router.references(request, at));
    const pid = lsp.status("app", "python").pid!;
    // Frozen, the server holds the next request unanswered; then it dies.
    Deno.kill(pid, "SIGSTOP");
    const pending = lsp.router.references(request, at);
    await eventually("the request in flight", () => lsp.status("app", "python").in_flight === 1);
    Deno.kill(pid, "SIGKILL");
    const crashed = await pending;
    assert.deepEqual(crashed.ok, false);
    assert.deepEqual(!crashed.ok && crashed.reason, "crashed");
    const afterCrash = lsp.status("app", "python");
    assert.deepEqual(afterCrash.state, "failed");
    assert.deepEqual(afterCrash.crashes, 1);
    assert.ok(afterCrash.last_error?.includes("SIGKILL"), afterCrash.last_error ?? "");
    assert.ok(afterCrash.next_restart_at !== null);
    // Before the backoff ends a request falls back at once.
    const early = await lsp.router.references({ ...request, waitForReadyMs: 0 }, at);
    assert.deepEqual(!early.ok && early.reason, "restarting");
    // The restart comes by itself; a caller willing to wait gets the exact answer again.
    const recovered = answered(await lsp.router.references(request, at));
    assert.deepEqual(recovered.hits.length, 3);
    const after = lsp.status("app", "python");
    assert.deepEqual(after.state, "ready");
    assert.deepEqual(after.restarts, 1);
    assert.ok(after.pid !== null && after.pid !== pid);
  });
});

Deno.test("a pyright that stops answering times out, degrades, and is restarted after repeated timeouts (real process)", async () => {
  const root = repository(PYTHON_FILES);
  await withLsp({
    repositories: { app: root },
    lsp: { python: pythonServer() },
  }, async (lsp) => {
    const request = lsp.request("app", "python");
    const at = { path: "pkg/util.py", line: 1, column: 5 };
    answered(await lsp.router.references(request, at));
    const pid = lsp.status("app", "python").pid!;
    Deno.kill(pid, "SIGSTOP");
    const hurried = { ...request, timeoutMs: 300 };
    const first = await lsp.router.references(hurried, at);
    assert.deepEqual(!first.ok && first.reason, "timeout");
    assert.deepEqual(lsp.status("app", "python").state, "degraded");
    await lsp.router.references(hurried, at);
    await lsp.router.references(hurried, at);
    // Three timeouts in a row: the manager kills the frozen server and starts another.
    await eventually(
      "the restart after three timeouts",
      () => lsp.status("app", "python").last_error?.includes("consecutive timeouts") === true,
    );
    await eventually("the frozen server to be gone", () => !processAlive(pid));
    const status = lsp.status("app", "python");
    assert.deepEqual(status.timeouts, 3);
    assert.ok(status.last_error?.includes("consecutive timeouts"), status.last_error ?? "");
    const again = answered(await lsp.router.references({ ...request, waitForReadyMs: 60_000 }, at));
    assert.deepEqual(again.hits.length, 3);
  });
});

Deno.test("a frozen server does not hold up another repository's server (real process)", async () => {
  const slow = repository(PYTHON_FILES);
  const quick = repository(PYTHON_FILES);
  await withLsp({
    repositories: { slow, quick },
    lsp: { python: pythonServer() },
  }, async (lsp) => {
    const at = { path: "pkg/util.py", line: 1, column: 5 };
    answered(await lsp.router.references(lsp.request("slow", "python"), at));
    const frozen = lsp.status("slow", "python").pid!;
    Deno.kill(frozen, "SIGSTOP");
    const held = lsp.router.references(
      { ...lsp.request("slow", "python"), timeoutMs: 120_000 },
      at,
    );
    await eventually("the held request", () => lsp.status("slow", "python").in_flight === 1);
    // The other repository's server starts, indexes and answers while the first one hangs.
    const other = answered(await lsp.router.references(lsp.request("quick", "python"), at));
    assert.deepEqual(other.hits.length, 3);
    assert.deepEqual(lsp.status("slow", "python").in_flight, 1);
    Deno.kill(frozen, "SIGKILL");
    const heldAnswer = await held;
    assert.deepEqual(!heldAnswer.ok && heldAnswer.reason, "crashed");
  });
});

Deno.test("pyright runs nothing from the repository: not its virtualenv's python, not a python3 on a PATH entry inside it (real process)", async () => {
  const marker = tempDirectory({ prefix: "sextant-marker-" });
  const trap = `#!/bin/sh\ntouch ${marker}/ran-$(basename "$0")\nexec /usr/bin/env python3 "$@"\n`;
  const root = repository({
    ...PYTHON_FILES,
    "pyrightconfig.json": JSON.stringify({ venvPath: ".", venv: ".venv" }),
    ".venv/pyvenv.cfg": "home = /usr/bin\n",
  });
  writeExecutable(join(root, ".venv"), "python", trap);
  Deno.mkdirSync(join(root, ".venv/bin"), { recursive: true });
  writeExecutable(join(root, ".venv/bin"), "python", trap);
  writeExecutable(join(root, ".venv/bin"), "python3", trap);
  const hostEnv = { ...Deno.env.toObject() };
  hostEnv.PATH = `${join(root, ".venv/bin")}:.:${hostEnv.PATH}`;
  const { LspManager, LspRouter, parseLspConfig } = await import("../src/lsp/mod.ts");
  const { gitSnapshot } = await import("./lsp_fixture.ts");
  const manager = new LspManager({
    config: parseLspConfig({ python: pythonServer() }, "sextant.yml"),
    repositories: [{ name: "app", root }],
    hostEnv,
  });
  try {
    const answer = answered(
      await new LspRouter(manager).definition(
        { repo: "app", language: "python", snapshot: gitSnapshot(root), waitForReadyMs: 60_000 },
        { path: "pkg/main.py", line: 5, column: 13 },
      ),
    );
    assert.deepEqual(answer.hits[0].path, "pkg/util.py");
  } finally {
    await manager.dispose();
  }
  assert.deepEqual([...Deno.readDirSync(marker)].map((entry) => entry.name), []);
});
