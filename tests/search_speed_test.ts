/**
 * What search's cheaper paths must give exactly as the plain ones did: lines
 * read from a prefix of a stored text, lexical scores summed per chunk row and
 * the best of them picked without sorting them all, term rows ordered without a comparator, the first matching line of a snippet found with a cheap
 * pre-check, and a search's snippets cut from the committed text.
 */
import assert from "node:assert/strict";
import { firstMatchingLine } from "../src/actions/search.ts";
import { LexicalScores } from "../src/search/lexical.ts";
import { sliceLines } from "../src/engine/lines.ts";
import { codeTerms } from "../src/engine/tokenizer.ts";
import { packText, TEXT_PIECE, unpackLines, unpackText } from "../src/store/packing.ts";
import type { TargetReader } from "../src/store/reader.ts";
import { stableOrder } from "../src/engine/order.ts";
import { fixtureRepository, openTarget, withWorkspace } from "./_helpers.ts";
import { seededRandom } from "./_random.ts";

const PIECES = [
  "def f(x):",
  "    return x",
  "",
  "\r",
  "Größe",
  "日本語のテキスト",
  "\uFEFFbom inside",
  "σφάλμα ΣΑΣ",
  "😀 emoji",
  "x".repeat(300),
  "class A:  # comment",
];

function randomText(next: () => number): string {
  const lines: string[] = [];
  const count = Math.floor(next() * 400);
  for (let i = 0; i < count; i++) lines.push(PIECES[Math.floor(next() * PIECES.length)]);
  let text = lines.join("\n");
  if (next() < 0.3) text += "\n";
  if (next() < 0.2) text = "\uFEFF" + text;
  return text;
}

Deno.test("lines read from a prefix of a stored text are the whole text's lines", () => {
  const next = seededRandom(12);
  for (let round = 0; round < 200; round++) {
    const text = randomText(next);
    // Whole, and in pieces of a few bytes (cut inside lines and characters) to a few lines.
    const packed = packText(text, [TEXT_PIECE, 7, 64, 500, 4096][round % 5]);
    const whole = unpackText(packed);
    assert.equal(whole, text.replace(/^\uFEFF/, ""), `round ${round}: unpacked`);
    const lineCount = whole.split("\n").length;
    for (let probe = 0; probe < 20; probe++) {
      const start = Math.floor(next() * (lineCount + 3)) - 1;
      const end = start + Math.floor(next() * 60) - 5;
      const maxLines = 1 + Math.floor(next() * 50);
      // A right guess, none at all, and wrong ones (too short falls back to the whole text).
      const share = [0, 1, next(), Math.max(1, end) / lineCount][probe % 4];
      const first = Math.max(1, start);
      const last = Math.min(end, start + maxLines - 1);
      // The output sized right, unknown, too small and too large: the same lines.
      const bytes = new TextEncoder().encode(whole).length;
      const size = [bytes, 0, 7, bytes * 3][Math.floor(probe / 4) % 4];
      const expected = sliceLines(whole, start, end, maxLines);
      assert.equal(
        unpackLines(packed, first, last, share, size),
        expected,
        `round ${round}: lines ${start}..${end} (at most ${maxLines}), share ${share}, size ${size}`,
      );
      // From a byte of the first line (its start, its line feed, or between) of the text as it
      // was packed (a leading byte-order mark counted), as chunks know it.
      const at = byteOnLine(text, first, next());
      if (at === null) continue;
      assert.equal(
        unpackLines(packed, first, last, share, size, at),
        expected,
        `round ${round}: lines ${start}..${end} (at most ${maxLines}) from byte ${at}`,
      );
    }
  }
});

/** A byte offset on 1-based line `line` of a text's UTF-8 bytes (`pick` in [0, 1) says where). */
function byteOnLine(text: string, line: number, pick: number): number | null {
  const lines = text.split("\n");
  if (line > lines.length) return null;
  const encoder = new TextEncoder();
  const start = encoder.encode(lines.slice(0, line - 1).map((l) => l + "\n").join("")).length;
  const length = encoder.encode(lines[line - 1]).length;
  return start + Math.floor(pick * (length + 1));
}

Deno.test("lexical scores sum per chunk in first-match order; the best are a stable sort's first ones, ties included", () => {
  const next = seededRandom(3);
  for (let round = 0; round < 300; round++) {
    // The plain way: a map by row, in the order rows were first matched.
    const plain = new Map<number, { score: number; terms: number }>();
    const rows = 1 + Math.floor(next() * 200);
    const scores = new LexicalScores(rows, 1 + Math.floor(next() * 4));
    const adds = Math.floor(next() * 90);
    for (let i = 0; i < adds; i++) {
      const row = Math.floor(next() * rows);
      // Few distinct scores: many ties, at the cut too.
      const score = Math.floor(next() * 6) / 2;
      const bit = Math.floor(next() * 32);
      scores.add(row, score, bit);
      const match = plain.get(row) ?? { score: 0, terms: 0 };
      match.score += score;
      match.terms |= 1 << bit;
      plain.set(row, match);
    }
    assert.equal(scores.size, plain.size);
    [...plain].forEach(([row, match], slot) => {
      assert.equal(scores.slotOf(row), slot);
      assert.equal(scores.rows[slot], row);
      assert.equal(scores.scores[slot], match.score);
      assert.equal(scores.terms[slot], match.terms);
    });
    for (let row = 0; row < rows; row++) {
      if (!plain.has(row)) assert.equal(scores.slotOf(row), -1);
    }
    const count = Math.floor(next() * 70);
    const expected = [...plain.entries()].map(([row, match], slot) => ({ row, slot, match }))
      .sort((a, b) => b.match.score - a.match.score).slice(0, count)
      .map((entry) => entry.slot).sort((a, b) => a - b);
    assert.deepEqual([...scores.best(count)], expected, `round ${round}`);
    // Released, its table serves the next scores of a table this size: cleared.
    scores.release();
    const again = new LexicalScores(rows);
    for (let row = 0; row < rows; row++) assert.equal(again.slotOf(row), -1);
    again.add(rows - 1, 1, 0);
    assert.equal(again.slotOf(rows - 1), 0);
    assert.equal(again.scores[0], 1);
    assert.equal(again.terms[0], 1);
    assert.equal(again.size, 1);
    again.release();
  }
});

Deno.test("term rows are ordered as a stable sort by rank orders them, ties and signed zeros included", () => {
  const next = seededRandom(5);
  for (let round = 0; round < 300; round++) {
    // Mostly short, some long enough for several merge passes.
    const size = Math.floor(next() * (round % 10 === 0 ? 700 : 80));
    // Few distinct ranks (many ties), negative as bm25's, with -0 and 0 among them.
    const pool = [-0, 0, -1.5, -2.25, -1e-6, -3, 4];
    const ranks = Float64Array.from(
      { length: size },
      () => next() < 0.5 ? pool[Math.floor(next() * pool.length)] : -next() * 10,
    );
    const expected = [...ranks.keys()].sort((a, b) => ranks[a] - ranks[b]);
    assert.deepEqual([...stableOrder(ranks)], expected, `round ${round}`);
  }
});

Deno.test("the first matching line of a snippet is the line whose code terms hold a query term", () => {
  const next = seededRandom(5);
  const words = [
    "get_coeff",
    "Generator",
    "ΣΑΣΒα",
    "σας",
    "os.path",
    "x-y",
    "$el",
    "HTTPServer2",
    "größe",
    "plain",
    "İstanbul",
  ];
  const reference = (snippet: string, terms: ReadonlySet<string>, startLine: number) => {
    const lines = snippet.split("\n");
    const at = lines.findIndex((line) => codeTerms(line).some((term) => terms.has(term)));
    return at < 0 ? startLine : startLine + at;
  };
  for (let round = 0; round < 500; round++) {
    const lines = Array.from(
      { length: 1 + Math.floor(next() * 6) },
      () =>
        Array.from(
          { length: Math.floor(next() * 4) },
          () => words[Math.floor(next() * words.length)],
        ).join(next() < 0.5 ? " " : ""),
    );
    const query = words.filter(() => next() < 0.25).join(" ");
    const terms = new Set(codeTerms(query));
    const snippet = lines.join("\n");
    assert.equal(
      firstMatchingLine(snippet, terms, 10),
      reference(snippet, terms, 10),
      `${JSON.stringify(snippet)} for ${query}`,
    );
  }
});

Deno.test("search's snippets are the chunk's lines of the committed text, deep in a long file too", async () => {
  const body: string[] = [];
  for (let i = 0; i < 3000; i++) {
    body.push(`def helper_${i}(value):`, `    return value * ${i} + ${i % 7}`, "");
  }
  body.push("def sextant_needle_function(argument):", "    return argument", "");
  const root = fixtureRepository({ "pkg/long.py": body.join("\n"), "pkg/small.py": "x = 1\n" });
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    const repo = workspace.repositories[0];
    // The committed text read on another connection: the workspace's reader keeps none decoded.
    const db = openTarget(workspace);
    const row = db.prepare(
      `SELECT t.text AS text FROM file_text t JOIN source_files f ON f.id = t.file_id
        WHERE f.path = 'pkg/long.py'`,
    ).get() as { text: Uint8Array };
    db.close();
    const text = unpackText(row.text);
    assert.equal(text, body.join("\n"));
    // Over 16 KiB: stored in pieces (their mark first), which snippets inflate from.
    assert.equal(row.text[0], 0xfe);
    for (const query of ["sextant_needle_function", "helper_1500", "helper_2", "value"]) {
      const answer = await run("search", { query, limit: 10 });
      assert.ok(answer.results.length > 0, query);
      for (const hit of answer.results) {
        assert.equal(hit.snippet, sliceLines(text, hit.start_line, hit.end_line), query);
      }
    }
    const needle = await run("search", { query: "sextant_needle_function", limit: 1 });
    assert.equal(needle.results[0].match_line, 9001);
    // Every chunk of the file, read as search reads it, against the committed text.
    workspace.withReader(repo, (reader: TargetReader) => {
      const id = reader.fileId("pkg/long.py")!;
      for (let line = 1; line <= 9004; line += 37) {
        const chunk = reader.chunkAt(id, line);
        if (chunk === null) continue;
        const columns = reader.chunkColumns();
        const row = columns.rows.get(chunk)!;
        const entry = {
          path: "pkg/long.py",
          startLine: columns.startLines[row],
          endLine: columns.endLines[row],
          startByte: columns.startBytes[row],
        };
        // No decoded text is kept: these are read from prefixes of the stored bytes.
        assert.deepEqual(
          reader.fileLines([
            { path: entry.path, start: entry.startLine, end: entry.endLine },
            { path: entry.path, start: entry.startLine, end: entry.endLine + 100 },
            { path: "pkg/absent.py", start: 1, end: 2 },
            // From the chunk's first byte, as search asks: from the piece that holds it.
            {
              path: entry.path,
              start: entry.startLine,
              end: entry.endLine + 100,
              startByte: entry.startByte,
            },
          ], 12),
          [
            sliceLines(text, entry.startLine, entry.endLine, 12),
            sliceLines(text, entry.startLine, entry.endLine + 100, 12),
            null,
            sliceLines(text, entry.startLine, entry.endLine + 100, 12),
          ],
        );
      }
    });
  });
});
