/** Doc comments become one-sentence summaries, markup removed (pure). */
import assert from "node:assert/strict";
import { firstSentence } from "../src/indexer/extract.ts";

Deno.test("doc summaries: comment markers and doc markup are removed, the first sentence kept", () => {
  const cases: [string, string | null][] = [
    ["/**\n * Returns the {@link Gson} instance. <p>More text.\n */", "Returns the Gson instance."],
    [
      '/// <summary>\n/// Reads a <see cref="JToken"/> from the reader.\n/// </summary>',
      "Reads a JToken from the reader.",
    ],
    ["/// A point on the plane.\n/// Second line.", "A point on the plane."],
    ["//! Crate docs here.", "Crate docs here."],
    ["// Start starts the server.", "Start starts the server."],
    ['"""Says hello."""', "Says hello."],
    ["/** Uses Array<string> values. */", "Uses Array<string> values."],
    ["/** @param x ignored */", null],
  ];
  for (const [raw, expected] of cases) assert.equal(firstSentence(raw), expected, raw);
});
