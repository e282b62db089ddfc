import assert from "node:assert/strict";
import { analyzeQuery, pathMatchesMention, pathMentions } from "../src/engine/query.ts";

const weightOf = (query: string, term: string) =>
  analyzeQuery(query).terms.find((entry) => entry.term === term)?.weight ?? 0;

Deno.test("query: an identifier yields its compact form and parts", () => {
  const analysis = analyzeQuery("parseConfigFile");
  const terms = analysis.terms.map((entry) => entry.term);
  assert.deepEqual(new Set(terms), new Set(["parseconfigfile", "parse", "config", "file"]));
  assert.deepEqual(analysis.identifiers, ["parseConfigFile"]);
});

Deno.test("query: the title and quoted code outweigh prose; repeats add little", () => {
  const issue = [
    "Crash in merge_cookies",
    "When I call `Session.merge_cookies` with an empty value the session breaks.",
    "session session session session session session session session",
  ].join("\n");
  assert.ok(weightOf(issue, "mergecookies") > weightOf(issue, "breaks"));
  assert.ok(weightOf(issue, "crash") > weightOf(issue, "breaks"));
  // Nine mentions of a prose word do not reach the weight of the title's identifier.
  assert.ok(weightOf(issue, "session") < weightOf(issue, "mergecookies") + 1);
  assert.ok(analyzeQuery(issue).identifiers.includes("merge_cookies"));
});

Deno.test("query: bare numbers, stop words and version listings are dropped", () => {
  const analysis = analyzeQuery("the 404 and 12 of it\npluggy   1.0.0\nattrs==22.1.0\nreal words");
  const terms = analysis.terms.map((entry) => entry.term);
  assert.ok(!terms.includes("404"));
  assert.ok(!terms.includes("the"));
  assert.ok(!terms.includes("pluggy"));
  assert.ok(!terms.includes("attrs"));
  assert.ok(terms.includes("real"));
  assert.deepEqual(analyzeQuery("!!! ... ???").terms, []);
  assert.deepEqual(analyzeQuery("the and of").terms, []);
});

Deno.test("query: traceback frames give paths, lines and functions", () => {
  const text = [
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3/site-packages/_pytest/python.py", line 512, in _importtestmodule',
    "    mod = import_path(self.path)",
    "src/lib/parse.ts:41:7",
    "see also docs\\guide.md",
  ].join("\n");
  const mentions = pathMentions(text);
  assert.deepEqual(mentions[0], {
    path: "/usr/lib/python3/site-packages/_pytest/python.py",
    line: 512,
    symbol: "_importtestmodule",
  });
  assert.ok(mentions.some((m) => m.path === "src/lib/parse.ts" && m.line === 41));
  assert.ok(mentions.some((m) => m.path === "docs/guide.md"));
  assert.ok(analyzeQuery(text).identifiers.includes("_importtestmodule"));
});

Deno.test("query: a mentioned path matches a repository path by its trailing segments", () => {
  assert.equal(pathMatchesMention("src/_pytest/python.py", "src/_pytest/python.py"), 1);
  assert.ok(
    pathMatchesMention("src/_pytest/python.py", "/usr/lib/site-packages/_pytest/python.py") > 0.5,
  );
  assert.equal(pathMatchesMention("src/_pytest/python.py", "other/thing.py"), 0);
  // A generic file name alone says little.
  assert.equal(pathMatchesMention("src/pkg/__init__.py", "/elsewhere/__init__.py"), 0);
});

Deno.test("query: a conventional-commit scope is a path hint", () => {
  const analysis = analyzeQuery("fix(async/unstable): honor abort in pooledMap");
  assert.deepEqual(analysis.scopes, ["async/unstable"]);
  assert.ok(analysis.identifiers.includes("pooledMap"));
});

Deno.test("query: FTS5 operators in user text are plain words", () => {
  const terms = analyzeQuery('"foo" AND NEAR(bar* -baz) col:qux ^x').terms.map((e) => e.term);
  for (const term of terms) assert.match(term, /^[\p{L}\p{N}_$]+$/u, term);
  assert.ok(terms.includes("foo") && terms.includes("bar") && terms.includes("qux"));
});
