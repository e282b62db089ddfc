import assert from "node:assert/strict";
import { runAction } from "../src/actions/dispatch.ts";
import { cacheKey, ResultCache } from "../src/actions/result_cache.ts";
import { fixtureRepository, withWorkspace, writeFiles } from "./_helpers.ts";

Deno.test("result cache: a repeated query is answered without work; a new generation invalidates", async () => {
  const root = fixtureRepository({
    "src/retry.ts": "export function backoffDelay(n: number) {\n  return 2 ** n;\n}\n",
  });
  await withWorkspace(root, async (workspace) => {
    await workspace.refresh(workspace.repositories[0]);
    const cache = new ResultCache({ maxEntries: 2 });
    let computed = 0;
    const ask = async (query: string, context = {}) =>
      (await cache.run({ workspace, action: "search", params: { query }, context }, () => {
        computed++;
        return runAction(workspace, "search", { query }, context);
      })).envelope;
    const first = await ask("backoffDelay");
    const second = await ask("backoffDelay");
    assert.equal(computed, 1);
    assert.equal(cache.hits, 1);
    assert.deepEqual(second.results, first.results);
    assert.notEqual(second.trace_id, first.trace_id);

    // Another scope is another key: an agent that may not see src/ gets its own answer.
    const { envelope: hidden } = await cache.run({
      workspace,
      action: "search",
      params: { query: "backoffDelay" },
      context: { allowPath: (_repo: string, path: string) => !path.startsWith("src/") },
      scope: "agent-without-src",
    }, () => {
      computed++;
      return runAction(workspace, "search", { query: "backoffDelay" }, {
        allowPath: (_repo, path) => !path.startsWith("src/"),
      });
    });
    assert.equal(computed, 2);
    assert.deepEqual(hidden.results, []);

    // A new generation changes the key: the next answer is computed and sees the change.
    writeFiles(root, { "src/other.ts": "export function backoffDelayMax() {\n  return 1;\n}\n" });
    await workspace.refresh(workspace.repositories[0]);
    const third = await ask("backoffDelay");
    assert.equal(computed, 3);
    assert.ok(third.results.some((hit) => hit.path === "src/other.ts"));
    assert.ok(!first.results.some((hit) => hit.path === "src/other.ts"));

    // Bounded: the least recently used answer goes first.
    assert.ok(cache.size <= 2);
  });
});

Deno.test("result cache: uncacheable requests always run", async () => {
  const root = fixtureRepository({ "a.ts": "export const a = 1;\n" });
  await withWorkspace(root, async (workspace) => {
    await workspace.refresh(workspace.repositories[0]);
    const base = { workspace, params: { query: "a" } };
    assert.equal(cacheKey({ ...base, action: "status", context: {} }), null);
    assert.equal(cacheKey({ ...base, action: "refresh", context: {} }), null);
    // A path policy without a name for it cannot be keyed safely.
    assert.equal(cacheKey({ ...base, action: "search", context: { allowPath: () => true } }), null);
    assert.notEqual(
      cacheKey({ ...base, action: "search", context: { allowPath: () => true }, scope: "agent-1" }),
      null,
    );
    // Parameter order does not matter; `refresh` is not part of the key.
    assert.equal(
      cacheKey({ workspace, action: "search", params: { query: "a", limit: 3 }, context: {} }),
      cacheKey({
        workspace,
        action: "search",
        params: { limit: 3, refresh: true, query: "a" },
        context: {},
      }),
    );
  });
});

Deno.test("result cache: each request's outcome is its own, whatever others are answered meanwhile", async () => {
  const root = fixtureRepository({ "a.ts": "export function alphaBeta() {\n  return 1;\n}\n" });
  await withWorkspace(root, async (workspace) => {
    await workspace.refresh(workspace.repositories[0]);
    const cache = new ResultCache();
    const request = (action: string, params: Record<string, unknown>) => ({
      workspace,
      action,
      params,
      context: {},
    });
    const answer = (action: string, params: Record<string, unknown>) => () =>
      runAction(workspace, action, params);
    const symbols = { query: "alphaBeta" };
    const first = await cache.run(request("symbols", symbols), answer("symbols", symbols));
    assert.equal(first.outcome, "miss");
    // A miss and an uncacheable request that are still computing while another request hits.
    let release = () => {};
    const gate = new Promise<void>((resolve) => release = resolve);
    const gated = (action: string, params: Record<string, unknown>) => async () => {
      await gate;
      return await answer(action, params)();
    };
    const slowMiss = cache.run(request("search", symbols), gated("search", symbols));
    const slowUncached = cache.run(request("status", {}), gated("status", {}));
    const hit = await cache.run(request("symbols", symbols), answer("symbols", symbols));
    assert.equal(hit.outcome, "hit");
    release();
    assert.equal((await slowMiss).outcome, "miss");
    assert.equal((await slowUncached).outcome, "uncached");
    assert.equal((await slowMiss).envelope.action, "search");
    assert.deepEqual([cache.hits, cache.misses], [1, 2]);
  });
});
