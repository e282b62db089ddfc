/**
 * Server lifecycle with real processes: a server that never becomes ready, commands that are
 * refused before anything is spawned, and shutdown when idle.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
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

const AT = { path: "pkg/main.py", line: 5, column: 13 };

Deno.test("a server that never answers initialize times out, falls back, and is killed (real process)", async () => {
  const root = repository(PYTHON_FILES);
  const bin = tempDirectory({ prefix: "sextant-lsp-bin-" });
  // Reads stdin forever and never writes a byte (fd 3 keeps the stdout pipe open).
  const silent = writeExecutable(
    bin,
    "silent-server",
    `#!/bin/sh\necho $$ >> ${bin}/pids\nexec 3>&1\nexec cat > /dev/null\n`,
  );
  await withLsp({
    repositories: { app: root },
    lsp: { python: { command: [silent], start_timeout_ms: 1_500 } },
  }, async (lsp) => {
    const quick = await lsp.router.definition(lsp.request("app", "python", 300), AT);
    assert.equal(quick.ok, false);
    assert.equal(!quick.ok && quick.reason, "not_ready");
    assert.equal(lsp.status("app", "python").state, "starting");
    // A caller that waits longer than the start bound sees the start fail.
    const waited = await lsp.router.definition(lsp.request("app", "python", 5_000), AT);
    assert.equal(!waited.ok && waited.reason, "failed");
    assert.match(!waited.ok ? waited.message : "", /initialize did not answer within 1500 ms/);
    const status = lsp.status("app", "python");
    assert.equal(status.state, "failed");
    assert.equal(status.profile, "generic");
    assert.match(status.last_error ?? "", /initialize did not answer within 1500 ms/);
    assert.ok(status.next_restart_at !== null);
    const pid = Number(Deno.readTextFileSync(join(bin, "pids")).trim().split("\n")[0]);
    await eventually("the silent server to be gone", () => !processAlive(pid), 5_000);
  });
});

Deno.test("refused commands are reported by status and never spawned (real process)", async () => {
  const marker = tempDirectory({ prefix: "sextant-marker-" });
  const trap = (name: string) => `#!/bin/sh\ntouch ${marker}/${name}\nexec cat > /dev/null\n`;
  const root = repository({ ...PYTHON_FILES, "tools/server.sh": trap("inside") });
  Deno.chmodSync(join(root, "tools/server.sh"), 0o755);
  const bin = tempDirectory({ prefix: "sextant-lsp-bin-" });
  const notExecutable = join(bin, "plain-file");
  Deno.writeTextFileSync(notExecutable, trap("plain"));
  Deno.chmodSync(notExecutable, 0o644);
  const cases: [string, string[], RegExp][] = [
    [
      "missing",
      ["no-such-language-server-xyz", "--stdio"],
      /lsp\.python\.command\[0\]: 'no-such-language-server-xyz' is not an executable on PATH/,
    ],
    ["plain", [notExecutable], /lsp\.python\.command\[0\]: '.*plain-file' is not executable/],
    ["relative", ["./server.sh"], /is a relative path; give a name on PATH or an absolute path/],
    [
      "inside",
      [join(root, "tools/server.sh")],
      /lies inside the repository .*; a repository's own code is never run/,
    ],
  ];
  for (const [name, command, message] of cases) {
    await withLsp({
      repositories: { app: root },
      lsp: { python: { command } },
    }, async (lsp) => {
      const before = lsp.status("app", "python");
      assert.equal(before.state, "failed", name);
      assert.equal(before.refused, true, name);
      assert.match(before.last_error ?? "", message, name);
      const answer = await lsp.router.definition(lsp.request("app", "python", 1_000), AT);
      assert.equal(!answer.ok && answer.reason, "refused", name);
      assert.match(!answer.ok ? answer.message : "", message, name);
      const after = lsp.status("app", "python");
      assert.equal(after.pid, null, name);
      assert.equal(after.started_at, null, name);
    });
  }
  assert.deepEqual([...Deno.readDirSync(marker)].map((entry) => entry.name), []);
});

Deno.test("an unconfigured language falls back as not_configured (real process)", async () => {
  const root = repository(PYTHON_FILES);
  await withLsp({ repositories: { app: root }, lsp: {} }, async (lsp) => {
    const answer = await lsp.router.definition(lsp.request("app", "python"), AT);
    assert.equal(!answer.ok && answer.reason, "not_configured");
    assert.deepEqual(lsp.manager.status(), []);
  });
});

Deno.test("an idle server is shut down and starts again on the next request (real process)", async () => {
  const root = repository(PYTHON_FILES);
  await withLsp({
    repositories: { app: root },
    lsp: { python: pythonServer({ idle_shutdown_ms: 1_500 }) },
  }, async (lsp) => {
    const first = await lsp.router.definition(lsp.request("app", "python"), AT);
    assert.ok(first.ok);
    const pid = lsp.status("app", "python").pid!;
    await eventually(
      "the idle shutdown",
      () => lsp.status("app", "python").state === "unavailable",
    );
    assert.equal(lsp.status("app", "python").pid, null);
    await eventually("the process to end", () => !processAlive(pid), 5_000);
    assert.equal(lsp.status("app", "python").crashes, 0);
    const second = await lsp.router.definition(lsp.request("app", "python"), AT);
    assert.ok(second.ok, !second.ok ? second.message : "");
    assert.notEqual(lsp.status("app", "python").pid, pid);
  });
});
