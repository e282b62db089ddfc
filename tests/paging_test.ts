/**
 * Paging and budgets on every action: `limit`, `token_budget` and one cursor
 * format, bound to the request and the generations it was issued at.
 */
import assert from "node:assert/strict";
import { runAction } from "../src/actions/dispatch.ts";
import {
  type CursorBinding,
  cutToFit,
  isOffset,
  issueCursor,
  pageOf,
  readCursor,
  tokenCost,
} from "../src/actions/paging.ts";
import { LineIndex, sliceLines } from "../src/engine/lines.ts";
import { WireError } from "../src/protocol/errors.ts";
import type { Envelope, ResultHit } from "../src/protocol/types.ts";
import { fixtureRepository, withWorkspace, writeFiles } from "./_helpers.ts";
import { seededRandom } from "./_random.ts";

type Run = (action: string, params?: Record<string, unknown>) => Promise<Envelope>;

const USERS = ["alpha", "bravo", "charlie", "delta"];

const FILES: Record<string, string> = {
  "lib/core.py": [
    "def compute_total(items):",
    '    """Sum the items of an order, with tax and rounding."""',
    "    total = 0",
    "    for item in items:",
    "        total += item",
    "    return total",
    "",
  ].join("\n"),
  ...Object.fromEntries(USERS.map((name) => [
    `app/${name}.py`,
    [
      "from lib.core import compute_total",
      "",
      "",
      `def compute_${name}_order(items):`,
      `    # the ${name} order totals its items`,
      "    return compute_total(items) + compute_total([1, 2, 3])",
      "",
    ].join("\n"),
  ])),
  "secret/first.py": "def compute_total(items):\n    return 0\n",
  "secret/second.py": "def compute_total(items):\n    return 1\n",
};

function where(hits: ResultHit[]): string[] {
  return hits.map((hit) => `${hit.path}:${hit.start_line}:${hit.start_column ?? ""}`);
}

function expectInvalidParams(pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof WireError, `expected a WireError, got ${error}`);
    assert.equal(error.name, "InvalidParams", error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

/** Every page of an answer, following next_cursor; each page must move forward. */
async function allPages(
  run: Run,
  action: string,
  params: Record<string, unknown>,
): Promise<{ hits: ResultHit[]; pages: Envelope[] }> {
  const hits: ResultHit[] = [];
  const pages: Envelope[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const answer: Envelope = await run(action, { ...params, ...(cursor ? { cursor } : {}) });
    pages.push(answer);
    hits.push(...answer.results);
    assert.equal(answer.truncated, answer.next_cursor !== null, "truncated comes with a cursor");
    if (answer.next_cursor === null) return { hits, pages };
    assert.ok(answer.results.length > 0, `page ${page} of ${action} is empty but not last`);
    assert.notEqual(answer.next_cursor, cursor, "the cursor moves");
    cursor = answer.next_cursor;
  }
  throw new Error(`${action} did not finish paging in 100 pages`);
}

Deno.test("paging: budgets, cursors and access on every action", async (t) => {
  const root = fixtureRepository(FILES);
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");

    await t.step(
      "navigation under a token_budget below one hit returns it cut to fit and moves on",
      async () => {
        const whole = await run("references", { symbol: "lib.core.compute_total" });
        assert.ok(whole.results.length >= 8, where(whole.results).join());
        const first = await run("references", {
          symbol: "lib.core.compute_total",
          token_budget: 1,
        });
        assert.equal(first.results.length, 1);
        assert.equal(first.truncated, true);
        assert.ok(first.next_cursor);
        assert.ok(first.limitations.some((line) => /token_budget 1/.test(line)));
        const { hits, pages } = await allPages(run, "references", {
          symbol: "lib.core.compute_total",
          token_budget: 1,
        });
        assert.equal(pages.length, whole.results.length);
        assert.deepEqual(where(hits), where(whole.results));
        // The hits are the same, only their snippets are cut.
        assert.ok(hits.every((hit, i) => whole.results[i].snippet.startsWith(hit.snippet)));
      },
    );

    await t.step("search honours token_budget and pages with its cursor", async () => {
      const whole = await run("search", { query: "compute total items", limit: 50 });
      assert.ok(whole.results.length >= 3);
      const small = await run("search", { query: "compute total items", token_budget: 20 });
      assert.equal(small.results.length, 1);
      assert.equal(small.truncated, true);
      assert.ok(small.next_cursor, "a truncated answer has a next_cursor");
      assert.ok(tokenCost(small.results[0]) < tokenCost(whole.results[0]));
      const { hits } = await allPages(run, "search", {
        query: "compute total items",
        limit: 50,
        token_budget: 20,
      });
      assert.deepEqual(where(hits), where(whole.results));
      const byLimit = await allPages(run, "search", { query: "compute total items", limit: 2 });
      assert.deepEqual(where(byLimit.hits), where(whole.results));
    });

    await t.step("symbols honours token_budget and pages with its cursor", async () => {
      const whole = await run("symbols", { query: "compute", limit: 100 });
      assert.ok(whole.results.length >= 6, where(whole.results).join());
      const small = await run("symbols", { query: "compute", token_budget: 20 });
      assert.equal(small.results.length, 1);
      assert.equal(small.truncated, true);
      assert.ok(small.next_cursor);
      const { hits } = await allPages(run, "symbols", { query: "compute", token_budget: 20 });
      assert.deepEqual(where(hits), where(whole.results));
      const byLimit = await allPages(run, "symbols", { query: "compute", limit: 4 });
      assert.deepEqual(where(byLimit.hits), where(whole.results));
    });

    await t.step("symbols drops hidden definitions before limit and truncated", async () => {
      const context = { allowPath: (_repo: string, path: string) => !path.startsWith("secret/") };
      const one = await runAction(
        workspace,
        "symbols",
        { query: "compute_total", limit: 1 },
        context,
      );
      assert.deepEqual(where(one.results), ["lib/core.py:1:"]);
      const all = await runAction(workspace, "symbols", { query: "compute_total" }, context);
      assert.ok(all.results.every((hit) => !hit.path.startsWith("secret/")));
      const exact = all.results.filter((hit) => hit.name === "compute_total");
      assert.deepEqual(where(exact), ["lib/core.py:1:"]);
    });

    await t.step("grep pages within a token_budget below one match", async () => {
      const whole = await run("grep", { pattern: "compute_total($$$A)", language: "python" });
      assert.ok(whole.results.length >= 8);
      const { hits } = await allPages(run, "grep", {
        pattern: "compute_total($$$A)",
        language: "python",
        token_budget: 1,
      });
      assert.deepEqual(where(hits), where(whole.results));
    });

    await t.step("garbage, forged and foreign cursors are InvalidParams", async () => {
      for (const action of ["search", "symbols"]) {
        await assert.rejects(
          run(action, { query: "compute", cursor: "garbage" }),
          expectInvalidParams(/not a next_cursor/),
        );
      }
      const page = await run("search", { query: "compute total items", limit: 1 });
      const cursor = page.next_cursor!;
      const [body, sum] = cursor.split(".");
      const tampered = `${body.slice(0, -2)}${body.endsWith("A") ? "B" : "A"}${body.slice(-1)}`;
      await assert.rejects(
        run("search", { query: "compute total items", limit: 1, cursor: `${tampered}.${sum}` }),
        expectInvalidParams(/not a next_cursor/),
      );
      await assert.rejects(
        run("symbols", { query: "compute total items", cursor }),
        expectInvalidParams(/another request/),
      );
      await assert.rejects(
        run("search", { query: "something else", cursor }),
        expectInvalidParams(/another request/),
      );
      await assert.rejects(
        run("references", { symbol: "lib.core.compute_total", cursor: "e30" }),
        expectInvalidParams(/not a next_cursor/),
      );
    });

    await t.step("a cursor of an older generation is refused", async () => {
      const search = await run("search", { query: "compute total items", limit: 1 });
      const grep = await run("grep", {
        pattern: "compute_total($$$A)",
        language: "python",
        limit: 1,
      });
      const refs = await run("references", { symbol: "lib.core.compute_total", limit: 1 });
      writeFiles(root, {
        "app/echo.py": "from lib.core import compute_total\ncompute_total([])\n",
      });
      await run("refresh");
      await assert.rejects(
        run("search", { query: "compute total items", limit: 1, cursor: search.next_cursor }),
        expectInvalidParams(/changed since it was issued/),
      );
      await assert.rejects(
        run("grep", {
          pattern: "compute_total($$$A)",
          language: "python",
          limit: 1,
          cursor: grep.next_cursor,
        }),
        expectInvalidParams(/changed since it was issued/),
      );
      await assert.rejects(
        run("references", { symbol: "lib.core.compute_total", limit: 1, cursor: refs.next_cursor }),
        expectInvalidParams(/changed since it was issued/),
      );
    });

    await t.step("status, refresh and rebuild accept token_budget", async () => {
      const status = await run("status", { token_budget: 50 });
      assert.equal((status.data as { repositories: unknown[] }).repositories.length, 1);
      const refreshed = await run("refresh", { token_budget: 10 });
      const reports = (refreshed.data as { reports: Record<string, unknown>[] }).reports;
      assert.deepEqual(Object.keys(reports[0]).sort(), ["changed", "generation", "name"]);
      assert.ok(refreshed.limitations.some((line) => /token_budget 10/.test(line)));
      const rebuilt = await run("rebuild", { token_budget: 100_000 });
      assert.ok((rebuilt.data as { reports: { plan: unknown }[] }).reports[0].plan);
      const withRefresh = await run("status", { refresh: true, token_budget: 100_000 });
      assert.equal(withRefresh.action, "status");
    });
  });
});

Deno.test("cursor: round trip, and anything not issued for the request is refused", () => {
  const binding: CursorBinding = {
    action: "grep",
    params: { pattern: "f($A)", limit: 5 },
    repositories: [{ name: "r", generation: 7, head: null }],
  };
  const position = { repo: "r", path: "a/ü.py", skip: 3 };
  const isPosition = (value: unknown): value is typeof position =>
    typeof value === "object" && value !== null;
  const cursor = issueCursor(binding, position);
  assert.match(cursor, /^[A-Za-z0-9_-]+\.[0-9a-f]{12}$/);
  assert.deepEqual(readCursor(cursor, binding, isPosition), position);
  // The page params do not change what the cursor continues.
  assert.deepEqual(
    readCursor(cursor, { ...binding, params: { pattern: "f($A)", limit: 9 } }, isPosition),
    position,
  );
  const refused = (text: string, b = binding) =>
    assert.throws(() => readCursor(text, b, isPosition), WireError);
  refused("garbage");
  refused("");
  refused(`${cursor}.x`);
  refused(cursor.replace(/\.[0-9a-f]+$/, ".000000000000"));
  refused(cursor, { ...binding, action: "search" });
  refused(cursor, { ...binding, params: { pattern: "g($A)" } });
  refused(cursor, { ...binding, repositories: [{ name: "r", generation: 8, head: null }] });
  refused(cursor, { ...binding, repositories: [] });
  assert.throws(() => readCursor(issueCursor(binding, -1), binding, isOffset), WireError);
});

Deno.test("pageOf: limit, budget, and the first hit cut to fit", () => {
  const hit = (i: number): ResultHit => ({
    repo: "r",
    path: `f${i}.ts`,
    start_line: 1,
    end_line: 30,
    symbol: null,
    kind: "chunk",
    signature: null,
    language: null,
    source_kind: "local",
    score: 1,
    snippet: Array.from({ length: 30 }, (_, line) => `line ${line} of file ${i}`).join("\n"),
  });
  const items = Array.from({ length: 5 }, (_, i) => hit(i));
  assert.deepEqual(pageOf(items, { offset: 0, limit: 2 }).next, 2);
  assert.deepEqual(pageOf(items, { offset: 4, limit: 2 }).next, null);
  const budget = tokenCost(items[0]) * 2 + 1;
  const fitted = pageOf(items, { offset: 1, limit: 5, tokenBudget: budget });
  assert.equal(fitted.results.length, 2);
  assert.equal(fitted.next, 3);
  const tiny = pageOf(items, { offset: 0, limit: 5, tokenBudget: 70 });
  assert.equal(tiny.results.length, 1);
  assert.equal(tiny.next, 1);
  assert.ok(tokenCost(tiny.results[0]) <= 70);
  assert.ok(items[0].snippet.startsWith(tiny.results[0].snippet));
  assert.equal(cutToFit(items[0], 1).snippet, "");
});

Deno.test("sliceLines cuts lines as split and join would", () => {
  const random = seededRandom(11);
  for (let run = 0; run < 300; run++) {
    const text = Array.from(
      { length: Math.floor(random() * 12) },
      () => "x".repeat(Math.floor(random() * 4)),
    ).join(random() < 0.5 ? "\n" : "\r\n");
    const lines = text.split("\n");
    const start = 1 + Math.floor(random() * 14);
    const end = Math.floor(random() * 16);
    const max = 1 + Math.floor(random() * 5);
    const last = Math.min(end, start + max - 1, lines.length);
    const expected = lines.slice(Math.max(0, start - 1), last).join("\n");
    assert.equal(sliceLines(text, start, end, max), expected, JSON.stringify({ text, start, end }));
  }
  const index = new LineIndex("ab\ncd\n");
  assert.deepEqual(index.position(4), { line: 2, col: 2 });
  assert.deepEqual(index.position(6), { line: 3, col: 1 });
});
