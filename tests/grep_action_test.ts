/**
 * The `grep` action's contract beyond matching: invalid patterns answered with
 * positions, the prefilter never changing the answer, limits and cursors,
 * language inference, the caller's scope, and answers from the committed text.
 */
import assert from "node:assert/strict";
import { runAction } from "../src/actions/dispatch.ts";
import { WireError } from "../src/protocol/errors.ts";
import type { Envelope, ResultHit } from "../src/protocol/types.ts";
import type { Workspace } from "../src/workspace/workspace.ts";
import { fixtureRepository, withWorkspace, writeFiles } from "./_helpers.ts";

type Run = (action: string, params?: Record<string, unknown>) => Promise<Envelope>;

const FILES: Record<string, string> = {
  // The shape, spread over lines with comments and odd spacing between its tokens.
  "src/shape.py": [
    "def run(job):",
    "    return retry_call (",
    "        job,  # the job",
    "        attempts = 3 ,",
    "    )",
    "",
  ].join("\n"),
  // Every literal of the pattern, but never in the shape.
  "src/decoy.py": [
    "# retry_call(job, attempts=3) in a comment",
    'HELP = "retry_call(job, attempts=3)"',
    "def attempts(retry_call):",
    "    return retry_call + 3",
    "",
  ].join("\n"),
  "src/many.py": Array.from({ length: 12 }, (_, i) => `x${i} = add(${i}, ${i})`).join("\n") + "\n",
  "src/quotes.py": 'print("say \\"hi\\"")\nprint(\'say "hi"\')\n',
  "lib/tool.go": "package lib\n\nfunc f() { g(1) }\n",
};

function expectWireError(name: string, check?: (error: WireError) => void) {
  return (error: unknown) => {
    assert.ok(error instanceof WireError, `expected a WireError, got ${error}`);
    assert.equal(error.name, name, error.message);
    check?.(error);
    return true;
  };
}

async function grepAll(run: Run, params: Record<string, unknown>): Promise<ResultHit[]> {
  const hits: ResultHit[] = [];
  let cursor: string | null = null;
  do {
    const answer: Envelope = await run("grep", { ...params, ...(cursor ? { cursor } : {}) });
    hits.push(...answer.results);
    cursor = answer.next_cursor;
    assert.equal(answer.truncated, cursor !== null);
  } while (cursor);
  return hits;
}

function where(hits: ResultHit[]): string[] {
  return hits.map((hit) => `${hit.path}:${hit.start_line}:${hit.start_col}`);
}

Deno.test("grep: errors, prefilter, limits, cursors, inference, scope and snapshot", async (t) => {
  const root = fixtureRepository(FILES);
  await withWorkspace(root, async (workspace: Workspace, run) => {
    await run("refresh");

    await t.step("invalid patterns are InvalidPattern errors with positions", async () => {
      await assert.rejects(
        run("grep", { pattern: "   ", language: "python" }),
        expectWireError("InvalidPattern"),
      );
      await assert.rejects(
        run("grep", { pattern: "foo(a b)", language: "python" }),
        expectWireError("InvalidPattern", (error) => {
          assert.match(error.message, /line 1, column 7/);
          assert.deepEqual((error.data as { line: number; column: number }).line, 1);
          assert.deepEqual((error.data as { column: number }).column, 7);
          assert.ok((error.data as { expected: string[] }).expected.includes(")"));
        }),
      );
      await assert.rejects(
        run("grep", { pattern: "call(x, [1, 2)\n", language: "python" }),
        expectWireError("InvalidPattern", (error) => {
          assert.match(error.message, /line 1, column 14: unexpected '\)'; expected '\]'/);
        }),
      );
      await assert.rejects(
        run("grep", { pattern: "if (\n  x", language: "typescript" }),
        expectWireError("InvalidPattern", (error) => {
          assert.match(
            error.message,
            /end of pattern; expected '\)' to close '\(' at line 1, column 4/,
          );
        }),
      );
      await assert.rejects(
        run("grep", { pattern: "a = 1\nb = 2", language: "python" }),
        expectWireError(
          "InvalidPattern",
          (error) => assert.match(error.message, /2 top-level nodes/),
        ),
      );
      await assert.rejects(
        run("grep", { pattern: "f($A)", language: "cobol" }),
        expectWireError("InvalidParams"),
      );
      await assert.rejects(
        run("grep", { pattern: `f(${"a, ".repeat(8000)}b)`, language: "python" }),
        expectWireError("LimitExceeded"),
      );
      await assert.rejects(
        run("grep", { pattern: "x".repeat(100_001), language: "python" }),
        expectWireError("LimitExceeded"),
      );
      await assert.rejects(
        run("grep", { pattern: "f($A)", language: "python", cursor: "garbage" }),
        expectWireError("InvalidParams"),
      );
    });

    await t.step(
      "the prefilter keeps every file with the shape and drops literal-only files",
      async () => {
        const pattern = "retry_call($J, attempts=3)";
        const first = await run("grep", { pattern, language: "python" });
        assert.deepEqual(where(first.results), ["src/shape.py:2:12"]);
        assert.equal((first.results[0].bindings as Record<string, { text: string }>).J.text, "job");
        // The decoy holds every literal, so it is read, but never answered.
        const data = first.data as { files_considered: number; files_parsed: number };
        assert.equal(data.files_considered, 2);
        assert.ok(data.files_parsed <= 2);
        // Asked again, only the statements that hold the literals are parsed: the same answer.
        const again = await run("grep", { pattern, language: "python" });
        assert.deepEqual(where(again.results), where(first.results));
      },
    );

    await t.step("short literals and quotes in literals", async () => {
      const adds = await grepAll(run, { pattern: "add($A, $A)", language: "python" });
      assert.equal(adds.length, 12);
      const quoted = await run("grep", { pattern: 'print("say \\"hi\\"")', language: "python" });
      assert.deepEqual(where(quoted.results), ["src/quotes.py:1:1"]);
    });

    await t.step("limit and cursor page through every match once", async () => {
      const everything = await run("grep", {
        pattern: "$X = add($$$)",
        language: "python",
        limit: 100,
      });
      assert.equal(everything.results.length, 12);
      assert.equal(everything.truncated, false);
      const first = await run("grep", { pattern: "$X = add($$$)", language: "python", limit: 5 });
      assert.equal(first.results.length, 5);
      assert.equal(first.truncated, true);
      assert.ok(first.next_cursor);
      const paged = await grepAll(run, { pattern: "$X = add($$$)", language: "python", limit: 5 });
      assert.deepEqual(where(paged), where(everything.results));
    });

    await t.step("a pattern matching every node is bounded and truncated", async () => {
      const every = await run("grep", { pattern: "$_", language: "python", limit: 20 });
      assert.equal(every.results.length, 20);
      assert.equal(every.truncated, true);
      const bare = await run("grep", { pattern: "$A", language: "python", limit: 3 });
      assert.equal(bare.results.length, 3);
      assert.equal(bare.truncated, true);
      // Never a comment, and never the inside of a string literal.
      for (const hit of every.results) assert.notEqual(hit.node_kind, "comment");
      const budget = await run("grep", { pattern: "$_", language: "python", token_budget: 50 });
      assert.equal(budget.results.length, 1);
      assert.equal(budget.truncated, true);
    });

    await t.step(
      "language comes from paths, else from the one language the pattern parses in",
      async () => {
        const go = await run("grep", { pattern: "g($N)", paths: ["lib/*.go"] });
        assert.deepEqual(where(go.results), ["lib/tool.go:3:12"]);
        assert.equal((go.data as { language: string }).language, "go");
        await assert.rejects(
          run("grep", { pattern: "g($N)" }),
          expectWireError(
            "InvalidParams",
            (error) => assert.match(error.message, /ambiguous.*python.*go|ambiguous.*go.*python/),
          ),
        );
        const pythonOnly = await run("grep", {
          pattern: "def $F($$$):\n    $$$",
          paths: ["src/**"],
        });
        assert.equal((pythonOnly.data as { language: string }).language, "python");
      },
    );

    await t.step("the caller's scope hides paths and repositories", async () => {
      const hidden = await runAction(
        workspace,
        "grep",
        { pattern: "add($A, $A)", language: "python" },
        { allowPath: (_repo, path) => path !== "src/many.py" },
      );
      assert.equal(hidden.results.length, 0);
      await assert.rejects(
        runAction(
          workspace,
          "grep",
          { pattern: "add($A, $A)", language: "python", repo: workspace.repositories[0].name },
          { repositories: new Set() },
        ),
        expectWireError("RepositoryNotFound"),
      );
    });

    await t.step(
      "answers come from the committed snapshot, not newer working-tree bytes",
      async () => {
        writeFiles(root, { "src/shape.py": "def run(job):\n    return None\n" });
        const stale = await run("grep", {
          pattern: "retry_call($J, attempts=3)",
          language: "python",
          refresh: false,
        });
        assert.deepEqual(where(stale.results), ["src/shape.py:2:12"]);
        assert.match(stale.results[0].snippet, /retry_call/);
        const fresh = await run("grep", {
          pattern: "retry_call($J, attempts=3)",
          language: "python",
          refresh: true,
        });
        assert.deepEqual(fresh.results, []);
      },
    );
  });
});

Deno.test("grep: an identifier's parts in a row narrow the files read; every token of it is found wherever it stands", async () => {
  // Files that hold both parts of `collect_buffer`, never side by side: each part alone would
  // make them candidates.
  const decoys = Object.fromEntries(
    Array.from({ length: 12 }, (_, i) => [
      `decoy/d${i}.py`,
      `buffer_${i} = collect(${i})\nbuffer.collect_all(buffer_${i})\n`,
    ]),
  );
  const root = fixtureRepository({
    ...decoys,
    "src/plain.py": "collect_buffer(1)\n",
    // Joined to a word around it: a subtraction without spaces, an attribute, a camel case.
    "src/joined.py": "n = 2\ny = n-collect_buffer(2)\nz = state.collect_buffer(3)\n",
    "src/camel.py": "collectBuffer(4)\n",
    // Parts that repeat, in their order.
    "src/repeat.py": "foo_bar_foo_baz(5)\nfoo_bar_baz(6)\n",
  });
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const grep = async (pattern: string) => {
      const answer = await run("grep", { pattern, language: "python" });
      return {
        where: where(answer.results),
        considered: (answer.data as { files_considered: number }).files_considered,
      };
    };
    // `state.collect_buffer(3)` holds the token but is no call of the bare name; the index is
    // blind to case, so `collectBuffer` is read too (and its text tells it apart).
    assert.deepEqual(await grep("collect_buffer($$$ARGS)"), {
      where: ["src/joined.py:2:7", "src/plain.py:1:1"],
      considered: 3,
    });
    assert.deepEqual(await grep("collectBuffer($A)"), {
      where: ["src/camel.py:1:1"],
      considered: 3,
    });
    assert.deepEqual(await grep("foo_bar_foo_baz($A)"), {
      where: ["src/repeat.py:1:1"],
      considered: 1,
    });
    assert.deepEqual((await grep("foo_bar_baz($A)")).where, ["src/repeat.py:2:1"]);
    // One part alone still finds every file that holds it as a token.
    assert.equal((await grep("collect($A)")).where.length, 12);
  });
});
