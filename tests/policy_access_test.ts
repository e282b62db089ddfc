// Answers are untyped JSON read back from the socket.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { DaemonClient, RpcFailure } from "../src/daemon/client.ts";
import { ErrorCode } from "../src/protocol/errors.ts";
import { METHODS } from "../src/protocol/methods.ts";
import { fixtureRepository, runCli, startDaemon, tempCache, tempDirectory } from "./_helpers.ts";

// Strings that exist only where the limited agent may not look. It never types them.
const FORBIDDEN = [
  "zuluMarkerQ",
  "yankeeMarkerW",
  "bravo-repo",
  "hidden.ts",
  "secret/",
  "lib/b.ts",
];

const ALPHA = {
  "src/visible.ts":
    "export function sharedWidget(): string {\n  return sharedWidgetHidden();\n}\n" +
    Array.from(
      { length: 6 },
      (_, i) => `export function sharedWidget${i}(): number {\n  return ${i};\n}\n`,
    ).join(""),
  "src/util.py": "def shared_widget_helper():\n    return 'visible helper'\n",
  "secret/hidden.ts":
    "export function sharedWidgetHidden(): string {\n  const zuluMarkerQ = 'sharedWidget secret';\n  return zuluMarkerQ;\n}\n",
  "secret/more.ts": "export class SharedWidgetVault {\n  zuluMarkerQ = 1;\n}\n",
};
const BRAVO = {
  "lib/b.ts":
    "export function sharedWidgetBravo(): string {\n  const yankeeMarkerW = 'sharedWidget bravo';\n  return yankeeMarkerW;\n}\n",
};

const TOKENS = { limited: "limited-token-123", summary: "pm-token-456" };

function policyWorkspace(): string {
  const alpha = fixtureRepository(ALPHA);
  const bravo = fixtureRepository(BRAVO);
  const workspace = tempDirectory({ prefix: "sextant-ws-" });
  const sha = createHash("sha256").update(TOKENS.summary).digest("hex");
  Deno.writeTextFileSync(
    join(workspace, "sextant.yml"),
    `repositories:
  - name: alpha
    path: ${alpha}
  - name: bravo-repo
    path: ${bravo}
project_siblings:
  - [alpha, bravo-repo]
agents:
  limited:
    token_env: LIMITED_TOKEN
    repositories: [alpha]
    paths: { alpha: ["src/**"] }
    max_results: 3
  pm:
    token_sha256: ${sha}
    repositories: "*"
    mode: summary
  admin:
    token_env: ADMIN_TOKEN
    repositories: "*"
`,
  );
  return workspace;
}

/** Every way an agent can address an action, with the strings the agent itself typed. */
function requestsFor(method: string): Record<string, unknown>[] {
  const spec = METHODS[method].params;
  const base: Record<string, unknown> = {};
  for (const [field, field_spec] of Object.entries(spec)) {
    if (field_spec.required) base[field] = "sharedWidget";
  }
  const variants: Record<string, unknown>[] = [{ ...base }];
  if ("limit" in spec) variants.push({ ...base, limit: 50 });
  if ("paths" in spec) {
    variants.push({ ...base, paths: ["**/*.ts"] }, { ...base, paths: ["secret/**"] });
  }
  if ("symbol" in spec) {
    for (
      const symbol of [
        "sharedWidget",
        "sharedWidgetHidden",
        "sharedWidgetBravo",
        "SharedWidgetVault",
      ]
    ) {
      variants.push({ ...base, symbol });
    }
  }
  if ("path" in spec && "line" in spec) {
    variants.push({ ...base, path: "src/visible.ts", line: 2, column: 10 });
  }
  return variants;
}

async function answer(client: DaemonClient, method: string, params: unknown): Promise<any> {
  try {
    return { result: await client.request(method, params) };
  } catch (error) {
    assert.ok(error instanceof RpcFailure, `${method}: ${error}`);
    return { error: { code: error.code, message: error.message, data: error.data } };
  }
}

/** An answer without what differs between two identical requests (trace ids, timings). */
function comparable(value: unknown, replace: [string, string]): string {
  return JSON.stringify(
    value,
    (key, item) => key === "trace_id" || key === "uptime_s" || key === "daemon" ? undefined : item,
  )
    .replaceAll(replace[0], replace[1]);
}

Deno.test("policy (real socket): an agent limited to alpha src/** never sees a byte of bravo or of alpha's other paths", async () => {
  const workspace = policyWorkspace();
  const daemon = await startDaemon({
    workspace,
    env: { LIMITED_TOKEN: TOKENS.limited, ADMIN_TOKEN: "admin-token-789" },
  });
  const admin = await DaemonClient.connect(daemon.socket);
  const limited = await DaemonClient.connect(daemon.socket);
  try {
    await admin.request("initialize", { agent: "admin", token: "admin-token-789" });
    await admin.request("refresh", {});
    const adminSearch = await admin.request("search", { query: "sharedWidget", limit: 50 }) as any;
    assert.ok(
      JSON.stringify(adminSearch).includes("zuluMarkerQ") ||
        JSON.stringify(adminSearch).includes("hidden.ts"),
      "the fixture's hidden content is findable by an agent allowed to see it",
    );

    const hello = await limited.request("initialize", {
      agent: "limited",
      token: TOKENS.limited,
    }) as any;
    assert.deepEqual(hello.repositories.map((r: any) => r.name), ["alpha"]);
    assert.deepEqual(Object.keys(hello.workspace), ["root"], "no config or cache paths");
    for (const forbidden of FORBIDDEN) {
      assert.ok(!JSON.stringify(hello).includes(forbidden), forbidden);
    }

    for (const method of Object.keys(METHODS)) {
      for (const params of requestsFor(method)) {
        for (const refresh of "refresh" in METHODS[method].params ? [true, false] : [false]) {
          const request = refresh ? { ...params, refresh } : params;
          const reply = await answer(limited, method, request);
          const text = JSON.stringify(reply);
          for (const forbidden of FORBIDDEN) {
            assert.ok(
              !text.includes(forbidden),
              `${method} ${JSON.stringify(request)} leaks '${forbidden}': ${text.slice(0, 400)}`,
            );
          }
          if (reply.error) assert.notEqual(reply.error.code, ErrorCode.InternalError, text);
          const hits = [...(reply.result?.results ?? []), ...(reply.result?.candidates ?? [])];
          for (const hit of hits) {
            assert.equal(hit.repo, "alpha", `${method}: ${text.slice(0, 300)}`);
            assert.match(hit.path, /^src\//, `${method}: ${text.slice(0, 300)}`);
          }
          assert.ok((reply.result?.results ?? []).length <= 3, `${method}: max_results`);
        }
        // A repository it may not see is answered exactly like one that does not exist.
        if ("repo" in METHODS[method].params) {
          const hiddenRepo = await answer(limited, method, { ...params, repo: "bravo-repo" });
          const missingRepo = await answer(limited, method, { ...params, repo: "nowhere-repo" });
          assert.equal(
            comparable(hiddenRepo, ["bravo-repo", "X"]),
            comparable(missingRepo, ["nowhere-repo", "X"]),
            method,
          );
        }
        // A path it may not see is answered exactly like one that does not exist.
        if ("path" in METHODS[method].params && "line" in METHODS[method].params) {
          const hiddenPath = await answer(limited, method, {
            ...params,
            path: "secret/hidden.ts",
            line: 2,
            column: 9,
          });
          const missingPath = await answer(limited, method, {
            ...params,
            path: "secret/absent.ts",
            line: 2,
            column: 9,
          });
          assert.equal(
            comparable(hiddenPath, ["secret/hidden.ts", "X"]),
            comparable(missingPath, ["secret/absent.ts", "X"]),
            method,
          );
        }
      }
    }

    const status = await limited.request("status") as any;
    const [alpha] = status.data.repositories;
    assert.equal(status.data.repositories.length, 1);
    assert.equal(alpha.files, 2, "only src/** files are counted");
    assert.deepEqual(Object.keys(alpha.languages).sort(), ["python", "typescript"]);
    const full = (await admin.request("status", { repo: "alpha" }) as any).data.repositories[0];
    assert.equal(full.files, 4);
    const capped = await limited.request("symbols", { query: "sharedWidget", limit: 50 }) as any;
    assert.equal(capped.results.length, 3);
    assert.equal(capped.truncated, true);
  } finally {
    admin.close();
    limited.close();
    await daemon.stop();
  }
});

Deno.test("policy (real socket): max_results pages an action whose default limit is larger; the cursor reaches every result", async () => {
  const workspace = policyWorkspace();
  const daemon = await startDaemon({
    workspace,
    env: { LIMITED_TOKEN: TOKENS.limited, ADMIN_TOKEN: "admin-token-789" },
  });
  const admin = await DaemonClient.connect(daemon.socket);
  const limited = await DaemonClient.connect(daemon.socket);
  try {
    await admin.request("initialize", { agent: "admin", token: "admin-token-789" });
    await admin.request("refresh", {});
    await limited.request("initialize", { agent: "limited", token: TOKENS.limited });
    // Seven sharedWidget* definitions are visible to the agent; symbols' default limit is 20.
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const params: Record<string, unknown> = { query: "sharedWidget" };
      if (cursor) params.cursor = cursor;
      const reply = await limited.request("symbols", params) as any;
      assert.ok(reply.results.length <= 3, "a page holds at most max_results");
      seen.push(...reply.results.map((hit: any) => hit.symbol));
      cursor = reply.next_cursor;
      if (!cursor) {
        assert.equal(reply.truncated, false, "truncated comes with a cursor");
        break;
      }
    }
    assert.equal(new Set(seen).size, 7, `every visible definition is reached: ${seen}`);
    assert.ok(seen.every((name) => !name.includes("Hidden") && !name.includes("Vault")));
  } finally {
    admin.close();
    limited.close();
    await daemon.stop();
  }
});

Deno.test("policy (real socket): wrong or missing tokens are refused alike; summary mode has no source text", async () => {
  const workspace = policyWorkspace();
  const daemon = await startDaemon({ workspace, env: { LIMITED_TOKEN: TOKENS.limited } });
  const client = await DaemonClient.connect(daemon.socket);
  try {
    const refused = async (params: unknown) => {
      try {
        await client.request("initialize", params);
      } catch (error) {
        assert.ok(error instanceof RpcFailure);
        assert.equal(error.code, ErrorCode.Unauthorized);
        return error.message;
      }
      assert.fail(`accepted ${JSON.stringify(params)}`);
    };
    const wrong = await refused({ agent: "limited", token: "guess" });
    assert.equal(
      await refused({ agent: "limited", token: TOKENS.summary }),
      wrong,
      "another agent's token",
    );
    assert.equal(await refused({ agent: "nobody", token: TOKENS.limited }), wrong, "unknown agent");
    assert.equal(await refused({ agent: "limited" }), wrong, "no token");
    const before: any = await client.request("status").catch((error) => error);
    assert.equal(before.code, ErrorCode.Unauthorized, "nothing is answered before initialize");
    assert.ok(!daemon.stderr().includes(TOKENS.limited), "tokens never reach the log");
    assert.ok(!daemon.stderr().includes("guess"), "tokens never reach the log");

    const hello = await client.request("initialize", { agent: "pm", token: TOKENS.summary }) as any;
    assert.deepEqual(
      hello.actions.sort(),
      ["map", "outline", "status"],
      "summary mode: map/outline/status only",
    );
    const search: any = await client.request("search", { query: "sharedWidget" }).catch((error) =>
      error
    );
    assert.equal(search.code, ErrorCode.Unauthorized);
    const status = await client.request("status", { refresh: undefined }) as any;
    assert.equal(status.data.repositories.length, 2);
  } finally {
    client.close();
    await daemon.stop();
  }
});

Deno.test("policy (real process): the embedded CLI applies the same policy with --agent/--token", async () => {
  const workspace = policyWorkspace();
  const env = { SEXTANT_CACHE_DIR: tempCache(), LIMITED_TOKEN: TOKENS.limited };
  const args = ["query", "--embedded", "--workspace", workspace, "--json", "--agent", "limited"];
  const search = await runCli([...args, "--token", TOKENS.limited, "search", "sharedWidget"], {
    env,
  });
  assert.equal(search.code, 0, search.stderr);
  for (const forbidden of FORBIDDEN) assert.ok(!search.stdout.includes(forbidden), forbidden);
  const envelope = JSON.parse(search.stdout);
  assert.ok(envelope.results.length > 0);
  assert.ok(
    envelope.results.every((hit: any) => hit.repo === "alpha" && hit.path.startsWith("src/")),
  );
  const wrong = await runCli([...args, "--token", "nope", "status"], { env });
  assert.equal(wrong.code, 2);
  assert.equal(JSON.parse(wrong.stdout).error.code, ErrorCode.Unauthorized);
});
