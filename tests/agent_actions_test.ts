/**
 * map, outline, context and verify answered in process on the agent fixture:
 * what each returns, paging and budgets, bad input, hidden paths.
 */
// Extra hit fields are read back untyped.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { join } from "node:path";
import { runAction } from "../src/actions/dispatch.ts";
import { WireError } from "../src/protocol/errors.ts";
import type { Envelope } from "../src/protocol/types.ts";
import type { AccessContext } from "../src/workspace/scope.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { fixtureRepository, tempCache, tempDirectory, withWorkspace } from "./_helpers.ts";
import { withoutTimes } from "../scripts/_bench_stats.ts";
import { agentRepository, BODY_MARKER, lineOf, SECRET_MARKER } from "./_agent_fixture.ts";

/** `withWorkspace` on a repository indexed first. */
function indexed(
  root: string,
  fn: (
    workspace: Workspace,
    run: (action: string, params?: Record<string, unknown>) => Promise<Envelope>,
  ) => Promise<void>,
): Promise<void> {
  return withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    await fn(workspace, run);
  });
}

/** Every page of an answer, following next_cursor. */
async function allPages(
  run: (action: string, params?: Record<string, unknown>) => Promise<Envelope>,
  action: string,
  params: Record<string, unknown>,
): Promise<Envelope[]> {
  const pages = [await run(action, params)];
  while (pages[pages.length - 1].next_cursor && pages.length < 100) {
    pages.push(await run(action, { ...params, cursor: pages[pages.length - 1].next_cursor }));
  }
  return pages;
}

Deno.test("map: files ranked by use, each with its most used definitions' signatures", async () => {
  await indexed(agentRepository(), async (_workspace, run) => {
    const map = await run("map", { uncommitted: false });
    const paths = map.results.map((hit) => hit.path);
    assert.equal(map.provenance.backend, "pagerank");
    assert.equal(map.provenance.confidence, "approximate");
    // util.py is used by every module; core.py by three; retry.py only by the package init.
    assert.equal(paths[0], "pkg/util.py", paths.join(" "));
    assert.ok(paths.indexOf("pkg/core.py") < paths.indexOf("pkg/retry.py"), paths.join(" "));
    const util = map.results[0] as any;
    assert.equal(util.kind, "file");
    assert.deepEqual(util.definitions, [
      `${lineOf("pkg/util.py", "def read_text")}: def read_text(path)`,
      `${lineOf("pkg/util.py", "def split_pairs")}: def split_pairs(text)`,
    ]);
    assert.ok(!JSON.stringify(map).includes(BODY_MARKER), "no bodies in a map");
    assert.equal((map.data as any).graph.files, 9);
    assert.ok((map.data as any).graph.edges > 0);
  });
});

Deno.test("map: a focus (text, path, symbol, changed files) ranks around it", async () => {
  const root = agentRepository();
  await indexed(root, async (_workspace, run) => {
    const byText = await run("map", {
      focus: "retry a call with exponential backoff",
      uncommitted: false,
    });
    assert.equal(byText.results[0].path, "pkg/retry.py");
    assert.ok(
      (byText.data as any).focus.files.includes("repo:pkg/retry.py") ||
        (byText.data as any).focus.files.some((f: string) => f.endsWith(":pkg/retry.py")),
    );
    const byPath = await run("map", { focus: "pkg/cli.py", uncommitted: false });
    assert.equal(byPath.results[0].path, "pkg/cli.py");
    const bySymbol = await run("map", { focus: "split_pairs", uncommitted: false });
    assert.deepEqual((bySymbol.data as any).focus.symbols, ["split_pairs"]);
    assert.equal(bySymbol.results[0].path, "pkg/util.py");
    // An uncommitted change is focus too (unless uncommitted: false).
    Deno.writeTextFileSync(
      join(root, "pkg/cli.py"),
      Deno.readTextFileSync(join(root, "pkg/cli.py")) + "\n\ndef extra():\n    return 1\n",
    );
    const changed = await run("map", { refresh: true });
    assert.ok(
      (changed.data as any).focus.changed.some((f: string) => f.endsWith(":pkg/cli.py")),
      JSON.stringify(changed.data),
    );
    assert.equal(changed.results[0].path, "pkg/cli.py");
    const unfocused = await run("map", { uncommitted: false, focus: "zzqqxx" });
    assert.ok(unfocused.limitations.some((l) => l.includes("nothing in the index matches")));
  });
});

Deno.test("map role onboarding: entry points, then core modules, then utilities, each with why", async () => {
  await indexed(agentRepository(), async (_workspace, run) => {
    const map = await run("map", { role: "onboarding", uncommitted: false, token_budget: 4000 });
    const stages = map.results.map((hit: any) => `${hit.stage}:${hit.path}`);
    const order = { entry: 0, core: 1, utility: 2 } as Record<string, number>;
    const ranks = map.results.map((hit: any) => order[hit.stage]);
    assert.deepEqual(ranks, [...ranks].sort(), stages.join(" "));
    assert.ok(stages.includes("entry:pkg/__main__.py"), stages.join(" "));
    assert.ok(stages.includes("entry:pkg/cli.py"), stages.join(" "));
    assert.ok(stages.includes("entry:pkg/__init__.py"), stages.join(" "));
    assert.ok(stages.includes("core:pkg/core.py"), stages.join(" "));
    assert.ok(stages.includes("utility:pkg/util.py"), stages.join(" "));
    assert.ok(!stages.some((s) => s.includes("tests/")), "tests are left out");
    for (const hit of map.results as any[]) assert.ok(hit.why.length > 0, hit.path);
    assert.match((map.results as any[]).find((h) => h.path === "pkg/__main__.py").why, /python -m/);
    assert.ok(map.limitations.some((l) => /test, doc or vendored/.test(l)));
  });
});

Deno.test("map: ranks kept between requests answer as a fresh workspace does, and move with a refresh", async () => {
  const root = agentRepository();
  const cache = tempCache();
  const append = (path: string, text: string) =>
    Deno.writeTextFileSync(join(root, path), Deno.readTextFileSync(join(root, path)) + text);
  // Uncommitted changes with no focus text personalise the ranks over the very same edges as
  // an unfocused map; a focus text weighs its names' edges (edges of their own).
  const asks: Record<string, unknown>[] = [
    { uncommitted: false },
    {},
    { uncommitted: false, focus: "split_pairs" },
    { role: "onboarding", uncommitted: false, token_budget: 4000 },
    { role: "onboarding", token_budget: 4000 },
    { uncommitted: false, token_budget: 4000 },
    { token_budget: 4000 },
  ];
  /** Each ask answered by a workspace that answered nothing before (nothing kept). */
  const fresh = async () => {
    const answers: unknown[] = [];
    for (const params of asks) {
      answers.push(
        await withWorkspace(root, async (_w, run) => {
          await run("refresh");
          return withoutTimes(await run("map", params));
        }, cache),
      );
    }
    return answers;
  };
  await withWorkspace(root, async (_workspace, run) => {
    const askAll = async (expected: unknown[]) => {
      // Twice over, plain and personalised in turn: what one request keeps never leaks into another.
      for (let round = 0; round < 2; round++) {
        for (const [i, params] of asks.entries()) {
          assert.deepEqual(
            withoutTimes(await run("map", params)),
            expected[i],
            JSON.stringify(params),
          );
        }
      }
    };
    append(
      "pkg/retry.py",
      "\n\ndef backoff_twice(call):\n    return retry_with_backoff(call, 2)\n",
    );
    await run("refresh");
    const before = await fresh();
    assert.notDeepEqual(before[1], before[0], "the changed file personalises the ranks");
    await askAll(before);
    // A new definition used from another file: the next generation's map lists it.
    append("pkg/util.py", "\n\ndef fresh_helper():\n    return 2\n");
    append(
      "pkg/cli.py",
      "\n\nfrom .util import fresh_helper\n\n\ndef extra():\n    return fresh_helper()\n",
    );
    await run("refresh");
    const after = await fresh();
    assert.ok(!JSON.stringify(before[5]).includes("fresh_helper"));
    assert.ok(JSON.stringify(after[5]).includes("fresh_helper"));
    await askAll(after);
  });
});

Deno.test("map over two repositories: kept while both generations hold, never for a path-limited caller", async () => {
  const demo = agentRepository();
  const other = fixtureRepository({
    "tool/main.py": "from tool.helpers import shout\n\n\ndef run():\n    return shout('hi')\n",
    "tool/helpers.py": "def shout(text):\n    return text.upper()\n",
  });
  const directory = tempDirectory({ prefix: "sextant-two-repos-" });
  Deno.writeTextFileSync(
    join(directory, "sextant.yml"),
    `repositories:\n  - name: demo\n    path: ${demo}\n  - name: other\n    path: ${other}\n`,
  );
  const cache = tempCache();
  const limited: AccessContext = {
    allowPath: (repo, path) => !(repo === "demo" && path.startsWith("pkg/secret/")),
    pathRestricted: (repo) => repo === "demo",
  };
  const params = { uncommitted: false, token_budget: 100_000 };
  /** The map a workspace that answered nothing before gives. */
  const fresh = (access?: AccessContext) =>
    withWorkspace(directory, async (workspace, run) => {
      await run("refresh");
      return withoutTimes(await runAction(workspace, "map", params, access));
    }, cache);
  await withWorkspace(directory, async (workspace, run) => {
    await run("refresh");
    const whole = await fresh();
    const hidden = await fresh(limited);
    assert.equal((whole as any).data.graph.files, 11);
    assert.equal((hidden as any).data.graph.files, 10, "the hidden file is not a node");
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(withoutTimes(await run("map", params)), whole);
      const seen = withoutTimes(await runAction(workspace, "map", params, limited));
      assert.deepEqual(seen, hidden);
      assert.ok(!JSON.stringify(seen).includes("secret"));
    }
    // One repository's next generation: the map over both follows it.
    Deno.writeTextFileSync(
      join(other, "tool/helpers.py"),
      "def shout(text):\n    return text.upper()\n\n\ndef whisper_twice(text):\n    return text\n",
    );
    Deno.writeTextFileSync(
      join(other, "tool/main.py"),
      "from tool.helpers import shout, whisper_twice\n\n\ndef run():\n" +
        "    return shout(whisper_twice('hi'))\n",
    );
    await run("refresh");
    const moved = await fresh();
    assert.ok(!JSON.stringify(whole).includes("whisper_twice"));
    assert.ok(JSON.stringify(moved).includes("whisper_twice"));
    assert.deepEqual(withoutTimes(await run("map", params)), moved);
    // The first repository's next generation likewise.
    Deno.writeTextFileSync(
      join(demo, "pkg/util.py"),
      Deno.readTextFileSync(join(demo, "pkg/util.py")) + "\n\ndef first_moved():\n    return 3\n",
    );
    Deno.writeTextFileSync(
      join(demo, "pkg/cli.py"),
      Deno.readTextFileSync(join(demo, "pkg/cli.py")) +
        "\n\nfrom .util import first_moved\n\n\ndef again():\n    return first_moved()\n",
    );
    await run("refresh");
    const first = await fresh();
    assert.ok(JSON.stringify(first).includes("first_moved"));
    assert.deepEqual(withoutTimes(await run("map", params)), first);
    assert.deepEqual(
      withoutTimes(await runAction(workspace, "map", params, limited)),
      await fresh(limited),
    );
  }, cache);
});

Deno.test("map: a budget too small for one file returns it cut and a cursor that moves on", async () => {
  await indexed(agentRepository(), async (_workspace, run) => {
    const whole = await run("map", { uncommitted: false, token_budget: 100_000 });
    const pages = await allPages(run, "map", { uncommitted: false, token_budget: 5 });
    const paged = pages.flatMap((page) => page.results.map((hit) => hit.path));
    assert.deepEqual(paged, whole.results.map((hit) => hit.path));
    assert.ok(pages.length > 1 && pages.every((page) => page.results.length === 1));
    assert.ok(pages[0].limitations.some((l) => l.includes("exceeds token_budget")));
  });
});

Deno.test("outline: repository → directory → file → definition with one-line summaries", async () => {
  await indexed(agentRepository(), async (_workspace, run) => {
    const tree = await run("outline", {});
    const rows = tree.results.map((hit: any) => `${hit.level} ${hit.kind} ${hit.path}`);
    assert.equal(rows[0], "0 repository .");
    assert.ok(rows.includes("1 directory pkg/"), rows.join("\n"));
    assert.ok(rows.includes("2 file pkg/core.py"), rows.join("\n"));
    assert.ok(!rows.some((row) => row.startsWith("3 ")), "depth 2 by default");
    const core = tree.results.find((hit) => hit.path === "pkg/core.py") as any;
    assert.equal(core.summary, "Core configuration handling.");
    const pkg = tree.results.find((hit) => hit.path === "pkg/") as any;
    assert.match(pkg.summary, /^7 file\(s\), 10 definition\(s\) — Demo package/);
    assert.equal(tree.provenance.confidence, "exact");

    const file = await run("outline", { path: "pkg/core.py" });
    const lines = file.results.map((hit: any) => `${hit.level} ${hit.start_line} ${hit.summary}`);
    assert.deepEqual(lines, [
      "0 1 Core configuration handling.",
      "1 5 class Config — A parsed configuration.",
      "2 8 def __init__(self, values)",
      "2 11 def get(self, key) — Return one value.",
      "1 16 def parse_config(path) — Parse a configuration file into a Config.",
    ]);
    assert.ok(!JSON.stringify(file).includes("self.values.get(key)"), "no bodies in an outline");
    const shallow = await run("outline", { depth: 1 });
    assert.ok(shallow.results.every((hit: any) => hit.level <= 1));
    const missing = await run("outline", { path: "pkg/nowhere" });
    assert.equal(missing.results.length, 0);
    assert.ok(missing.limitations.includes("no indexed file or directory 'pkg/nowhere' in scope"));
  });
});

Deno.test("outline: summaries of long files and READMEs; counts follow a refresh", async () => {
  const filler = (n: number, line: string) => Array.from({ length: n }, () => line).join("\n");
  const root = fixtureRepository({
    // A docstring over lines 2-4 of a file of thousands of lines.
    "big/__init__.py": `\n"""Big package of generated helpers.\n\nMore text.\n"""\n` +
      filler(3000, "X = 1"),
    // Prose starting at line 150 of a long README: its first paragraph is the summary.
    "docs/README.md": `${filler(149, "# heading")}\nThe docs tree holds guides. More.\n` +
      filler(500, "- item"),
    "docs/guide.py": `def guide():\n    return 1\n`,
    // A module doc starting after line 80 is not a module doc: what the file defines is said.
    "late.py": `${filler(80, "")}\n"""Too late to count."""\ndef late_one():\n    pass\n`,
  });
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const tree = await run("outline", { depth: 2 });
    const summary = (path: string) =>
      (tree.results.find((hit) => hit.path === path) as any)?.summary as string;
    assert.equal(summary("big/__init__.py"), "Big package of generated helpers.");
    assert.match(summary("big/"), /— Big package of generated helpers\.$/);
    assert.match(
      summary("docs/"),
      /^2 file\(s\), 1 definition\(s\) — The docs tree holds guides\.$/,
    );
    assert.equal(summary("late.py"), "defines late_one");
    // A new definition is counted once the refresh has committed it.
    Deno.writeTextFileSync(
      join(root, "docs/guide.py"),
      "def guide():\n    return 1\n\n\ndef more():\n    return 2\n",
    );
    await run("refresh");
    const after = await run("outline", { depth: 1 });
    const docs = after.results.find((hit) => hit.path === "docs/") as any;
    assert.match(docs.summary, /^2 file\(s\), 2 definition\(s\)/);
  });
});

Deno.test("outline: pages continue in order; a tiny budget still moves the cursor", async () => {
  await indexed(agentRepository(), async (_workspace, run) => {
    const whole = await run("outline", { depth: 4 });
    for (const page of [{ limit: 3 }, { token_budget: 3 }]) {
      const pages = await allPages(run, "outline", { depth: 4, ...page });
      assert.deepEqual(
        pages.flatMap((p) => p.results.map((hit) => `${hit.path}:${hit.start_line}`)),
        whole.results.map((hit) => `${hit.path}:${hit.start_line}`),
      );
    }
  });
});

Deno.test("context: bodies, then callees' signatures, callers' sites and imports, labelled", async () => {
  await indexed(agentRepository(), async (_workspace, run) => {
    const pack = await run("context", { symbols: ["parse_config"] });
    const first = pack.results[0] as any;
    assert.equal(first.piece, "body");
    assert.equal(first.path, "pkg/core.py");
    assert.equal(first.confidence, "exact");
    assert.match(
      first.snippet,
      /^def parse_config\(path\):\n[\s\S]*return Config\(split_pairs\(text\)\)$/,
    );
    const pieces = pack.results.map((hit: any) => `${hit.piece} ${hit.symbol ?? ""}`);
    assert.ok(pieces.includes("callee pkg.util.read_text"), pieces.join("\n"));
    assert.ok(pieces.includes("callee pkg.util.split_pairs"), pieces.join("\n"));
    assert.ok(pieces.includes("type pkg.core.Config") || pieces.includes("callee pkg.core.Config"));
    assert.ok(pieces.includes("caller pkg.cli.main"), pieces.join("\n"));
    assert.ok(pieces.some((p) => p.startsWith("import")), pieces.join("\n"));
    const callee = pack.results.find((hit: any) => hit.symbol === "pkg.util.read_text") as any;
    assert.equal(callee.snippet, "def read_text(path)\n  Read a file as text.");
    assert.equal(callee.confidence, "exact");
    assert.match(callee.why, /called by parse_config at line \d+/);
    const caller = pack.results.find((hit: any) => hit.piece === "caller") as any;
    assert.match(caller.snippet, /parse_config\(args\[0\]\)/);
    assert.equal((pack.data as any).seeds[0].symbol, "pkg.core.parse_config");

    const byQuery = await run("context", { query: "retry a call with exponential backoff" });
    assert.equal((byQuery.results[0] as any).piece, "body");
    assert.equal(byQuery.results[0].symbol, "pkg.retry.retry_with_backoff");
    assert.ok(byQuery.results[0].snippet.includes(BODY_MARKER));
  });
});

Deno.test("context: bad input — nothing asked, unknown symbols, a budget too small for one piece", async () => {
  await indexed(agentRepository(), async (_workspace, run) => {
    await assert.rejects(
      () => run("context", {}),
      (error: unknown) =>
        error instanceof WireError && /needs a 'query' or 'symbols'/.test(error.message),
    );
    const unknown = await run("context", { symbols: ["no_such_thing"] });
    assert.equal(unknown.results.length, 0);
    assert.ok(unknown.limitations.some((l) => l.startsWith("no definition named 'no_such_thing'")));
    const whole = await run("context", { symbols: ["parse_config"], token_budget: 100_000 });
    const tiny = await run("context", { symbols: ["parse_config"], token_budget: 5 });
    assert.equal(tiny.results.length, 1);
    assert.ok(tiny.results[0].snippet.length < whole.results[0].snippet.length, "cut to fit");
    assert.ok(tiny.truncated && tiny.next_cursor);
    const next = await run("context", {
      symbols: ["parse_config"],
      token_budget: 5,
      cursor: tiny.next_cursor,
    });
    assert.equal(next.results.length, 1);
    assert.notDeepEqual(next.results[0], tiny.results[0], "the cursor moved on");
    const pages = await allPages(run, "context", { symbols: ["parse_config"], token_budget: 400 });
    assert.equal(
      pages.reduce((n, page) => n + page.results.length, 0),
      whole.results.length,
      "every piece once across pages",
    );
  });
});

Deno.test("verify: each citation gets ok or the first check that fails, and the score", async () => {
  await indexed(agentRepository(), async (_workspace, run) => {
    const parse = lineOf("pkg/core.py", "def parse_config");
    const citations = [
      { path: "pkg/core.py", start_line: parse, end_line: parse + 3, symbol: "parse_config" },
      { path: "pkg/core.py", start_line: 5, end_line: 7, symbol: "parse_config" },
      { path: "pkg/gone.py", start_line: 1 },
      { path: "pkg/core.py", start_line: 10, end_line: 400 },
      {
        path: "pkg/core.py",
        start_line: parse,
        end_line: parse + 3,
        text: "text = read_bytes(path)",
      },
      {
        path: "pkg/core.py",
        start_line: parse,
        end_line: parse + 3,
        text: "text = read_text(path)",
      },
      { path: "pkg/core.py", claim: "parse_config calls split_pairs" },
      { path: "pkg/core.py", claim: "parse_config calls retry_with_backoff" },
      { path: "pkg/core.py", symbol: "Config.get" },
      { repo: "elsewhere", path: "pkg/core.py" },
    ];
    const answer = await run("verify", { citations });
    const verdicts = answer.results.map((hit: any) => hit.verdict);
    assert.deepEqual(verdicts, [
      "ok",
      "symbol_not_in_range",
      "file_unknown",
      "range_outside_file",
      "text_not_current",
      "ok",
      "ok",
      "relation_not_in_graph",
      "ok",
      "file_unknown",
    ]);
    assert.deepEqual(answer.results.map((hit: any) => hit.index), citations.map((_, i) => i));
    const moved = answer.results[1] as any;
    assert.deepEqual(moved.found_at.map((at: any) => [at.path, at.start_line]), [[
      "pkg/core.py",
      parse,
    ]]);
    assert.equal((answer.data as any).score, 0.4);
    assert.deepEqual((answer.data as any).verdicts, {
      ok: 4,
      symbol_not_in_range: 1,
      file_unknown: 2,
      range_outside_file: 1,
      text_not_current: 1,
      relation_not_in_graph: 1,
    });
    // A budget too small for one verdict: the first, cut, and a cursor to the next.
    const tiny = await run("verify", { citations, token_budget: 5 });
    assert.deepEqual(tiny.results.map((hit: any) => hit.index), [0]);
    const second = await run("verify", { citations, token_budget: 5, cursor: tiny.next_cursor });
    assert.deepEqual(second.results.map((hit: any) => hit.index), [1]);
    assert.equal((second.data as any).score, 0.4, "the score is the whole answer's");
    await assert.rejects(
      () => run("verify", { citations: [{ path: "pkg/core.py", claim: "nonsense" }] }),
      /must read 'A calls B'/,
    );
    await assert.rejects(() => run("verify", { citations: [{ start_line: 2 }] }), /needs 'path'/);
  });
});

Deno.test("verify: a stale citation is caught after the file changed, with where it is now", async () => {
  const root = agentRepository();
  await indexed(root, async (_workspace, run) => {
    const parse = lineOf("pkg/core.py", "def parse_config");
    const citation = {
      path: "pkg/core.py",
      start_line: parse,
      end_line: parse + 3,
      symbol: "parse_config",
      text: "text = read_text(path)",
    };
    assert.equal(
      ((await run("verify", { citations: [citation] })).results[0] as any).verdict,
      "ok",
    );
    const file = join(root, "pkg/core.py");
    Deno.writeTextFileSync(file, "import os\nimport re\n\n" + Deno.readTextFileSync(file));
    const stale = (await run("verify", { citations: [citation], refresh: true })).results[0] as any;
    assert.equal(stale.verdict, "symbol_not_in_range");
    assert.equal(stale.found_at[0].start_line, parse + 3);
    Deno.removeSync(file);
    const gone = (await run("verify", { citations: [citation], refresh: true })).results[0] as any;
    assert.equal(gone.verdict, "file_unknown");
  });
});

Deno.test("hidden paths: never counted or shown by map and outline; verify says file_unknown", async () => {
  const root = agentRepository();
  const workspace = await Workspace.open({ directory: root, cacheDirectory: tempCache() });
  try {
    await workspace.refresh(workspace.repositories[0]);
    const name = workspace.repositories[0].name;
    const access: AccessContext = {
      allowPath: (_repo, path) => !path.startsWith("pkg/secret/"),
      pathRestricted: () => true,
    };
    const run = (action: string, params: Record<string, unknown>) =>
      runAction(workspace, action, params, access);
    for (
      const [action, params] of [
        ["map", { uncommitted: false, token_budget: 100_000 }],
        ["map", { role: "onboarding", uncommitted: false, token_budget: 100_000 }],
        ["map", { focus: "open the vault", uncommitted: false, token_budget: 100_000 }],
        ["outline", { depth: 9 }],
      ] as const
    ) {
      const answer = await run(action, params);
      const text = JSON.stringify(answer);
      assert.ok(!text.includes("secret") && !text.includes(SECRET_MARKER), `${action}: ${text}`);
    }
    const full = await runAction(workspace, "map", { uncommitted: false });
    const limited = await run("map", { uncommitted: false });
    assert.equal((full.data as any).graph.files, 9);
    assert.equal((limited.data as any).graph.files, 8, "the hidden file is not a node");
    const outline = await run("outline", {});
    assert.match((outline.results[0] as any).summary, /^8 file\(s\)/);
    const answer = await run("verify", {
      citations: [
        { path: "pkg/secret/vault.py", start_line: 1 },
        { path: "pkg/secret/absent.py", start_line: 1 },
        { repo: name, path: "pkg/secret/vault.py", symbol: "open_vault" },
        { repo: name, path: "pkg/secret/absent.py", symbol: "open_vault" },
      ],
    });
    const [hidden, missing, hiddenNamed, missingNamed] = answer.results as any[];
    assert.equal(hidden.verdict, "file_unknown");
    assert.equal(
      JSON.stringify({ ...hidden, index: 0, trace: 0 }).replaceAll("vault", "X"),
      JSON.stringify({ ...missing, index: 0, trace: 0 }).replaceAll("absent", "X"),
    );
    assert.equal(
      JSON.stringify({ ...hiddenNamed, index: 0 }).replaceAll("vault.py", "X"),
      JSON.stringify({ ...missingNamed, index: 0 }).replaceAll("absent.py", "X"),
    );
  } finally {
    workspace.close();
  }
});
