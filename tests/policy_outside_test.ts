/**
 * Reads only what the inventory would index (real daemon, real socket, real
 * files): the resolver's manifests never through a symlink, the live-scan
 * fallback under the inventory's rules, and the answer cache never serving a
 * rebuilt target's old answers.
 */
// Answers are untyped JSON read back from the socket.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { join } from "node:path";
import { DaemonClient } from "../src/daemon/client.ts";
import { fixtureRepository, startDaemon, tempDirectory, writeFiles } from "./_helpers.ts";

async function withDaemon<T>(
  root: string,
  fn: (client: DaemonClient) => Promise<T>,
): Promise<T> {
  const daemon = await startDaemon({ workspace: root });
  const client = await DaemonClient.connect(daemon.socket);
  try {
    await client.request("initialize", {});
    return await fn(client);
  } finally {
    client.close();
    await daemon.stop();
  }
}

Deno.test("the resolver never reads a manifest through a symlink that leaves the repository (real socket)", async () => {
  const outside = Deno.realPathSync(tempDirectory({ prefix: "sextant-outside-" }));
  writeFiles(outside, {
    "tsconfig.json": `{ "compilerOptions": { "paths": { "@lib/*": ["src/lib/*"] } } }\n`,
  });
  const root = fixtureRepository({
    "src/lib/thing.ts": "export function thing(): number {\n  return 1;\n}\n",
    "src/app.ts": `import { thing } from "@lib/thing";\n\nexport const value = thing();\n`,
  }, { git: false });
  Deno.symlinkSync(join(outside, "tsconfig.json"), join(root, "tsconfig.json"));
  // The same mapping through a link inside the repository is not read either: links are not files.
  Deno.mkdirSync(join(root, "pkg"));
  writeFiles(root, {
    "pkg/real.json": `{ "compilerOptions": { "paths": { "@lib/*": ["src/lib/*"] } } }\n`,
  });
  Deno.symlinkSync("real.json", join(root, "pkg/tsconfig.json"));
  writeFiles(root, {
    "pkg/use.ts": `import { thing } from "@lib/thing";\n\nexport const other = thing();\n`,
  });
  await withDaemon(root, async (client) => {
    await client.request("refresh", {});
    for (const path of ["src/app.ts", "pkg/use.ts"]) {
      const answer: any = await client.request("definition", { path, line: 3, column: 22 });
      // Never resolved through the mapping only the linked file holds.
      for (const hit of answer.results) {
        assert.ok(!["import", "module_path"].includes(hit.evidence), JSON.stringify(hit));
      }
    }
  });
});

Deno.test("the live-scan fallback honours settings excludes, .git/info/exclude, secret names and links (real socket)", async () => {
  const root = fixtureRepository({
    "src/a.ts": "export const liveWordQ = 1;\n",
    "private/b.ts": "export const liveWordQ = 2;\n",
    ".envrc": "export liveWordQ=4\n",
    "config/secrets.yml": "liveWordQ: 5\n",
    ".code-index/settings.yml": "exclude: ['private/**']\n",
  });
  // Untracked, and ignored by this clone's own exclude file only.
  writeFiles(root, {
    ".git/info/exclude": "scratch.ts\n",
    "scratch.ts": "export const liveWordQ = 3;\n",
  });
  const outside = Deno.realPathSync(tempDirectory({ prefix: "sextant-outside-" }));
  writeFiles(outside, { "far.ts": "export const liveWordQ = 6;\n" });
  Deno.symlinkSync(join(outside, "far.ts"), join(root, "src/far.ts"));
  Deno.symlinkSync(outside, join(root, "src/away"));
  await withDaemon(root, async (client) => {
    // No target yet: answered from the working tree.
    const search: any = await client.request("search", { query: "liveWordQ", strategy: "lexical" });
    assert.equal(search.provenance.fallback_used, true, JSON.stringify(search.provenance));
    assert.deepEqual([...new Set(search.results.map((hit: any) => hit.path))], ["src/a.ts"]);
    const grep: any = await client.request("grep", { pattern: "liveWordQ" });
    assert.deepEqual(grep.results.map((hit: any) => hit.path), ["src/a.ts"]);
  });
});

Deno.test("the answer cache never serves a rebuilt target's old answer, though its generations start again (real socket)", async () => {
  const root = fixtureRepository({
    "src/keep.ts": "export const kept = 1;\n",
    "src/gone.ts": "export function vanishingWordQ(): number {\n  return 1;\n}\n",
  });
  await withDaemon(root, async (client) => {
    const first: any = await client.request("refresh", {});
    assert.equal(first.data.reports[0].generation, 1);
    const before: any = await client.request("search", { query: "vanishingWordQ" });
    assert.deepEqual(before.results.map((hit: any) => hit.path), ["src/gone.ts"]);
    Deno.removeSync(join(root, "src/gone.ts"));
    const rebuilt: any = await client.request("rebuild", {});
    assert.ok(rebuilt.data.reports[0].generation >= 1);
    const after: any = await client.request("search", { query: "vanishingWordQ" });
    assert.ok(
      !JSON.stringify(after.results).includes("gone.ts"),
      `a deleted file served from the cache: ${JSON.stringify(after.results)}`,
    );
    const symbols: any = await client.request("symbols", { query: "vanishingWordQ" });
    assert.deepEqual(symbols.results, []);
  });
});
