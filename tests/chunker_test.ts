import assert from "node:assert/strict";
import { seededRandom } from "./_random.ts";
import {
  type ChunkDefinition,
  chunkDefinitions,
  type ChunkOptions,
  type ChunkRange,
  chunkText,
} from "../src/engine/chunker.ts";

/** `count` lines of `length` characters each (newline included). */
function lines(count: number, length = 10): number[] {
  return Array(count).fill(length);
}

/** A definition spanning 0-based lines `startLine..endLine`, body starting on its first line. */
function definition(
  symbolPath: string,
  startLine: number,
  endLine: number,
  more: Partial<ChunkDefinition> = {},
): ChunkDefinition {
  return { startLine, endLine, bodyLine: startLine, symbolPath, breaks: [], children: [], ...more };
}

function size(lineLengths: readonly number[], chunk: ChunkRange): number {
  return lineLengths.slice(chunk.startLine, chunk.endLine + 1).reduce((a, b) => a + b, 0);
}

/** Asserts windows follow each other with exactly `overlap` repeated lines. */
function assertOverlapping(chunks: readonly ChunkRange[], overlap: number): void {
  for (let i = 1; i < chunks.length; i++) {
    const repeated = chunks[i - 1].endLine - chunks[i].startLine + 1;
    assert.equal(repeated, overlap, `window ${i} repeats ${repeated} lines`);
  }
}

const SMALL: ChunkOptions = { budget: 100, overlap: 2 };

Deno.test("chunker: a file within the budget is one chunk", () => {
  const chunks = chunkDefinitions(lines(6), [definition("a", 0, 2), definition("b", 3, 5)], SMALL);
  assert.deepEqual(chunks, [{ startLine: 0, endLine: 5, kind: "block", symbolPath: null }]);
});

Deno.test("chunker: an empty file has no chunks", () => {
  assert.deepEqual(chunkDefinitions([], [], SMALL), []);
  assert.deepEqual(chunkText([], "lines", SMALL), []);
});

Deno.test("chunker: small sibling definitions merge up to the budget", () => {
  const lengths = lines(30);
  const siblings = Array.from({ length: 10 }, (_, i) => definition(`f${i}`, i * 3, i * 3 + 2));
  const chunks = chunkDefinitions(lengths, siblings, SMALL);
  // Three 30-character definitions fit in 100 characters; a fourth would not.
  assert.deepEqual(chunks, [
    { startLine: 0, endLine: 8, kind: "block", symbolPath: null },
    { startLine: 9, endLine: 17, kind: "block", symbolPath: null },
    { startLine: 18, endLine: 26, kind: "block", symbolPath: null },
    { startLine: 27, endLine: 29, kind: "definition", symbolPath: "f9" },
  ]);
  for (const chunk of chunks) assert.ok(size(lengths, chunk) <= SMALL.budget);
});

Deno.test("chunker: a large definition splits into windows that repeat the overlap lines", () => {
  const chunks = chunkDefinitions(lines(40), [definition("big", 0, 39)], SMALL);
  assert.ok(chunks.length > 1);
  assert.equal(chunks[0].startLine, 0);
  assert.equal(chunks[chunks.length - 1].endLine, 39);
  assertOverlapping(chunks, SMALL.overlap);
  for (const chunk of chunks) {
    assert.equal(chunk.kind, "definition");
    assert.equal(chunk.symbolPath, "big");
    assert.ok(size(lines(40), chunk) <= SMALL.budget);
  }
});

Deno.test("chunker: a split never ends before the body starts (no split mid-signature)", () => {
  // A 16-line signature is larger than the budget on its own.
  const big = definition("big", 0, 39, { bodyLine: 15 });
  const chunks = chunkDefinitions(lines(40), [big], SMALL);
  assert.ok(chunks[0].endLine >= 15, `first window ends at ${chunks[0].endLine}`);
  for (const chunk of chunks) assert.ok(chunk.endLine >= big.bodyLine);
  assertOverlapping(chunks, SMALL.overlap);
});

Deno.test("chunker: a split prefers to end just before a statement starts", () => {
  // Without breaks the first window is lines 0..9; a statement at line 7 pulls the end to 6.
  const plain = chunkDefinitions(lines(40), [definition("big", 0, 39)], SMALL);
  assert.equal(plain[0].endLine, 9);
  const withBreaks = chunkDefinitions(
    lines(40),
    [definition("big", 0, 39, { bodyLine: 1, breaks: [1, 7, 20, 30] })],
    SMALL,
  );
  assert.equal(withBreaks[0].endLine, 6);
  assert.equal(withBreaks[1].startLine, 5);
});

Deno.test("chunker: a break in the first half of a window is not taken", () => {
  // Ending at line 2 would waste most of the window: the break at line 3 is ignored.
  const chunks = chunkDefinitions(
    lines(40),
    [definition("big", 0, 39, { breaks: [3] })],
    SMALL,
  );
  assert.equal(chunks[0].endLine, 9);
});

Deno.test("chunker: nested definitions carry their own symbol path", () => {
  const lengths = lines(21, 20);
  const owner = definition("mod.C", 0, 20, {
    bodyLine: 1,
    children: [definition("mod.C.small", 1, 3), definition("mod.C.large", 10, 19)],
  });
  const chunks = chunkDefinitions(lengths, [owner], { budget: 200, overlap: 1 });
  assert.deepEqual(chunks, [
    { startLine: 0, endLine: 9, kind: "block", symbolPath: "mod.C" },
    { startLine: 10, endLine: 19, kind: "definition", symbolPath: "mod.C.large" },
    { startLine: 20, endLine: 20, kind: "block", symbolPath: "mod.C" },
  ]);
});

Deno.test("chunker: a nested definition larger than the budget splits under its own path", () => {
  const lengths = lines(60);
  const owner = definition("mod.C", 0, 59, {
    children: [definition("mod.C.huge", 2, 50, { bodyLine: 3 })],
  });
  const chunks = chunkDefinitions(lengths, [owner], SMALL);
  const huge = chunks.filter((chunk) => chunk.symbolPath === "mod.C.huge");
  assert.ok(huge.length > 1);
  assert.equal(huge[0].startLine, 2);
  assert.equal(huge[huge.length - 1].endLine, 50);
  assertOverlapping(huge, SMALL.overlap);
});

Deno.test("chunker: chunks of only blank lines are dropped", () => {
  const lengths = [...lines(9), ...lines(12, 1), ...lines(9)];
  const chunks = chunkDefinitions(
    lengths,
    [definition("a", 0, 8), definition("b", 21, 29)],
    SMALL,
  );
  assert.deepEqual(chunks.map((chunk) => chunk.symbolPath), ["a", "b"]);
});

/** Random non-overlapping definitions inside `start..end`, nested up to `depth`. */
function randomDefinitions(
  random: () => number,
  range: { start: number; end: number; path: string; depth: number },
): ChunkDefinition[] {
  const definitions: ChunkDefinition[] = [];
  let cursor = range.start;
  while (cursor <= range.end) {
    cursor += Math.floor(random() * 4);
    const end = Math.min(range.end, cursor + Math.floor(random() * 40));
    if (cursor > end) break;
    const path = `${range.path}.d${definitions.length}`;
    const bodyLine = Math.min(end, cursor + Math.floor(random() * 3));
    const breaks = Array.from({ length: end - bodyLine }, (_, i) => bodyLine + 1 + i)
      .filter(() => random() < 0.3);
    const children = range.depth > 0 && end - cursor > 4
      ? randomDefinitions(random, { start: cursor + 1, end: end - 1, path, depth: range.depth - 1 })
      : [];
    definitions.push({
      startLine: cursor,
      endLine: end,
      bodyLine,
      symbolPath: path,
      breaks,
      children,
    });
    cursor = end + 1;
  }
  return definitions;
}

Deno.test("chunker: every non-blank line is covered by at least one chunk", () => {
  const random = seededRandom(7);
  for (let round = 0; round < 200; round++) {
    const lineCount = 1 + Math.floor(random() * 300);
    const lengths = Array.from(
      { length: lineCount },
      () => random() < 0.15 ? 1 : 2 + Math.floor(random() * 80),
    );
    const definitions = randomDefinitions(random, {
      start: 0,
      end: lineCount - 1,
      path: "m",
      depth: 2,
    });
    const options = {
      budget: 200 + Math.floor(random() * 1600),
      overlap: Math.floor(random() * 4),
    };
    const chunks = chunkDefinitions(lengths, definitions, options);
    const covered = new Set<number>();
    for (const chunk of chunks) {
      assert.ok(chunk.startLine <= chunk.endLine);
      for (let line = chunk.startLine; line <= chunk.endLine; line++) covered.add(line);
    }
    lengths.forEach((length, line) => {
      if (length > 1) assert.ok(covered.has(line), `round ${round}: line ${line} not covered`);
    });
  }
});

function byPath(
  definitions: readonly ChunkDefinition[],
  into = new Map<string, ChunkDefinition>(),
) {
  for (const definition of definitions) {
    into.set(definition.symbolPath, definition);
    byPath(definition.children, into);
  }
  return into;
}

Deno.test("chunker: no chunk that opens a definition ends before its body starts", () => {
  const random = seededRandom(11);
  let checked = 0;
  for (let round = 0; round < 200; round++) {
    const lineCount = 20 + Math.floor(random() * 200);
    const lengths = Array.from({ length: lineCount }, () => 2 + Math.floor(random() * 120));
    const definitions = randomDefinitions(random, {
      start: 0,
      end: lineCount - 1,
      path: "m",
      depth: 2,
    });
    const paths = byPath(definitions);
    const chunks = chunkDefinitions(lengths, definitions, { budget: 300, overlap: 2 });
    for (const chunk of chunks) {
      const owner = chunk.symbolPath === null ? undefined : paths.get(chunk.symbolPath);
      if (chunk.kind !== "definition" || !owner || chunk.startLine !== owner.startLine) continue;
      assert.ok(chunk.endLine >= owner.bodyLine, `round ${round}: ${JSON.stringify(chunk)}`);
      checked++;
    }
  }
  assert.ok(checked > 100, `only ${checked} definition chunks checked`);
});

const README = [
  "Preface before any heading.", // 0
  "", // 1
  "# Sextant", // 2
  "A code indexer.", // 3
  "## Install", // 4
  "```sh", // 5
  "# not a heading: a shell comment", // 6
  "deno task daemon", // 7
  "```", // 8
  "### From source", // 9
  "Clone it.", // 10
  "## Usage", // 11
  "~~~", // 12
  "## still code", // 13
  "~~~", // 14
  "Run it.", // 15
  "# Appendix", // 16
  "#hashtag is not a heading", // 17
];

Deno.test("chunker: Markdown splits at headings with the heading trail as symbol path", () => {
  const chunks = chunkText(README, "headings", { budget: 10_000, overlap: 1 });
  assert.deepEqual(chunks, [
    { startLine: 0, endLine: 1, kind: "section", symbolPath: null },
    { startLine: 2, endLine: 3, kind: "section", symbolPath: "Sextant" },
    { startLine: 4, endLine: 8, kind: "section", symbolPath: "Sextant > Install" },
    { startLine: 9, endLine: 10, kind: "section", symbolPath: "Sextant > Install > From source" },
    { startLine: 11, endLine: 15, kind: "section", symbolPath: "Sextant > Usage" },
    { startLine: 16, endLine: 17, kind: "section", symbolPath: "Appendix" },
  ]);
});

Deno.test("chunker: a # inside a fenced code block is not a heading", () => {
  const chunks = chunkText(README, "headings", { budget: 10_000, overlap: 1 });
  const starts = chunks.map((chunk) => README[chunk.startLine]);
  assert.ok(!starts.includes("# not a heading: a shell comment"));
  assert.ok(!starts.includes("## still code"));
});

Deno.test("chunker: a skipped heading level leaves no gap in the trail", () => {
  const chunks = chunkText(["# Top", "x", "### Deep", "y"], "headings", SMALL);
  assert.deepEqual(chunks.map((chunk) => chunk.symbolPath), ["Top", "Top > Deep"]);
});

Deno.test("chunker: a long Markdown section splits into windows under its heading", () => {
  const section = ["## Long", ...Array.from({ length: 40 }, (_, i) => `line ${i} of text`)];
  const chunks = chunkText(section, "headings", SMALL);
  assert.ok(chunks.length > 1);
  for (const chunk of chunks) assert.equal(chunk.symbolPath, "Long");
  assertOverlapping(chunks, SMALL.overlap);
});

Deno.test("chunker: plain text splits into overlapping windows covering every line", () => {
  const text = Array.from({ length: 50 }, (_, i) => `plain line ${i}`);
  const chunks = chunkText(text, "lines", SMALL);
  assert.equal(chunks[0].startLine, 0);
  assert.equal(chunks[chunks.length - 1].endLine, 49);
  assertOverlapping(chunks, SMALL.overlap);
  for (const chunk of chunks) {
    assert.equal(chunk.kind, "text");
    assert.equal(chunk.symbolPath, null);
  }
});

Deno.test("chunkDefinitions: a definition plus a blank gap keeps its symbol path", () => {
  const lengths = [10, 10, 10, 10, 10, 10, 1, 10, 10, 10, 10, 10, 10];
  const def = (symbolPath: string, startLine: number, endLine: number) => ({
    startLine,
    endLine,
    bodyLine: startLine + 1,
    symbolPath,
    breaks: [],
    children: [],
  });
  const chunks = chunkDefinitions(lengths, [def("first", 0, 5), def("second", 7, 12)], {
    budget: 65,
    overlap: 1,
  });
  assert.equal(chunks[0].symbolPath, "first");
  assert.equal(chunks[0].kind, "definition");
});
