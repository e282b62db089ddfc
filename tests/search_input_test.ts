import assert from "node:assert/strict";
import { WireError } from "../src/protocol/errors.ts";
import { fixtureRepository, withWorkspace } from "./_helpers.ts";

const FILES = {
  "src/retry.ts": [
    "/** Retries with exponential backoff. */",
    "export function backoffDelay(attempt: number): number {",
    "  return 100 * 2 ** attempt;",
    "}",
    "",
  ].join("\n"),
  "src/client.ts": [
    "export async function getJson(url: string, timeoutMs = 5000) {",
    "  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });",
    "  return await response.json();",
    "}",
    "",
  ].join("\n"),
  "docs/größe.md": "# Größe\n\nDie Größe der Datei wird in Bytes gemessen.\n",
  "src/данные.py": "def загрузить_данные(путь):\n    return open(путь).read()\n",
};

async function rejects(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof WireError, `expected WireError, got ${error}`);
    assert.equal(error.name, code);
    return true;
  });
}

Deno.test("search: FTS5 syntax in user text is searched as words, never parsed", async () => {
  const root = fixtureRepository(FILES);
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    for (
      const query of [
        '"timeout',
        "getJson*",
        "NEAR(getJson timeout)",
        "-timeout",
        "col:timeout",
        "timeout AND OR NOT",
        "^getJson",
        '"""',
        "timeoutMs:",
        "{getJson}",
      ]
    ) {
      for (const strategy of ["lexical", "vector", "hybrid"]) {
        const answer = await run("search", { query, strategy });
        assert.ok(Array.isArray(answer.results), query);
        if (/getjson|timeout/i.test(query)) {
          assert.equal(answer.results[0]?.path, "src/client.ts", `${query} (${strategy})`);
        }
      }
    }
  });
});

Deno.test("search: empty, punctuation-only, stop-word-only and oversized queries", async () => {
  const root = fixtureRepository(FILES);
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    await rejects(run("search", { query: "" }), "InvalidParams");
    await rejects(run("search", { query: "   \n\t" }), "InvalidParams");
    await rejects(run("search", { query: "x".repeat(100_001) }), "LimitExceeded");
    for (const query of ["!!! ??? ... ;;;", "the and of to is", "()[]{}<>"]) {
      const answer = await run("search", { query });
      assert.deepEqual(answer.results, [], query);
      assert.ok(answer.limitations.some((line) => /no searchable terms/.test(line)), query);
      assert.equal(answer.provenance.confidence, "weak");
    }
    // A query just under the limit is answered (a whole issue with logs pasted in).
    const big = `backoffDelay fails\n${"log line with noise 12345\n".repeat(3800)}`;
    assert.ok(new TextEncoder().encode(big).length < 100_000);
    const answer = await run("search", { query: big });
    assert.equal(answer.results[0]?.path, "src/retry.ts");
  });
});

Deno.test("search: non-Latin text is searchable", async () => {
  const root = fixtureRepository(FILES);
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const german = await run("search", { query: "Größe der Datei" });
    assert.equal(german.results[0]?.path, "docs/größe.md");
    const russian = await run("search", { query: "загрузить_данные" });
    assert.equal(russian.results[0]?.path, "src/данные.py");
    const chinese = await run("search", { query: "超时 重试" });
    assert.ok(Array.isArray(chinese.results));
  });
});

Deno.test("search: strategy and kind parameters", async () => {
  const root = fixtureRepository(FILES);
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const lexical = await run("search", { query: "exponential backoff", strategy: "lexical" });
    assert.equal(lexical.provenance.backend, "fts");
    const vector = await run("search", { query: "exponential backoff", strategy: "vector" });
    assert.equal(vector.provenance.backend, "vector");
    assert.equal(vector.results[0]?.path, "src/retry.ts");
    const hybrid = await run("search", { query: "exponential backoff" });
    assert.equal(hybrid.provenance.backend, "fts+vector");
    const docs = await run("search", { query: "Größe", kind: "doc" });
    assert.ok(docs.results.length > 0);
    assert.ok(docs.results.every((hit) => hit.source_kind === "doc"));
    const dependency = await run("search", { query: "backoff", kind: "dependency" });
    assert.deepEqual(dependency.results, []);
    assert.ok(dependency.limitations.some((line) => /dependency/.test(line)));
  });
});
