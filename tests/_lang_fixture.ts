/**
 * Language fixtures in the style of rust-analyzer's: a source file carries
 * marker comments naming what the index must report for the closest line
 * above the marker that is not itself a marker.
 *
 *     func (s *Server) Start() error {
 *     // ^ def: server.Server.Start method
 *         s.listen(addr)
 *     // ^ calls: listen receiver=s from=server.Server.Start
 *
 * Markers: `^ def: <qualified name> <kind>` (checked through the public
 * `symbols` action: name, kind, path and start line), and
 * `^ <relation kind>: <target> [receiver=… module=… alias=… from=…]` for
 * `calls`, `imports`, `inherits`, `implements`, `references`, `reads`,
 * `writes`, `type_of` (checked in the relation table: a row of that kind and
 * target starting on that line, with the given fields; `-` means null).
 * A target with spaces is quoted (`^ def: "A::operator bool" method`).
 * The comment may start with `#`, `//`, `--`, `;`, `%`, `/*` or `*`.
 */
import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import type { Envelope } from "../src/protocol/types.ts";
import {
  count,
  fixtureRepository,
  openTarget,
  relationFacts,
  withWorkspace,
  writeFiles,
} from "./_helpers.ts";

type Run = (action: string, params?: Record<string, unknown>) => Promise<Envelope>;

export interface Marker {
  path: string;
  /** 1-based line the marker refers to. */
  line: number;
  what: string;
  target: string;
  /** `def`: the kind; relations: required field values (null for `-`). */
  kind?: string;
  fields: Record<string, string | null>;
}

const MARKER = /^\s*(?:#|\/\/|--|;|%|\/\*|\*)\s*\^\s*([a-z_]+):\s*(.*?)\s*(?:\*\/)?\s*$/;
const RELATION_FIELDS = new Set(["receiver", "module", "alias", "from"]);

/** The markers of one file. */
export function parseMarkers(path: string, source: string): Marker[] {
  const markers: Marker[] = [];
  let lastCode = 0;
  source.split("\n").forEach((text, index) => {
    const match = MARKER.exec(text);
    if (!match) {
      lastCode = index + 1;
      return;
    }
    const [, what, rest] = match;
    // A target with spaces is quoted: `^ def: "A::operator bool" method`.
    const words = [...rest.matchAll(/"([^"]*)"|(\S+)/g)].map((word) => word[1] ?? word[2]);
    const fields: Record<string, string | null> = {};
    const positional: string[] = [];
    for (const word of words) {
      const eq = word.indexOf("=");
      if (eq > 0 && RELATION_FIELDS.has(word.slice(0, eq))) {
        const value = word.slice(eq + 1);
        fields[word.slice(0, eq)] = value === "-" ? null : value;
      } else positional.push(word);
    }
    if (positional.length === 0) throw new Error(`${path}:${index + 1}: marker without a target`);
    markers.push({
      path,
      line: lastCode,
      what,
      target: positional[0],
      kind: what === "def" ? positional[1] : undefined,
      fields,
    });
  });
  return markers;
}

/** The last segment of a qualified name: what a user types into `symbols`. */
export function simpleName(symbol: string): string {
  const parts = symbol.split(/::|[.#\\:]/);
  return parts[parts.length - 1].split(" ")[0];
}

export interface FixtureOptions {
  /** Kinds whose indexed symbols must be exactly the marked ones (default: none). */
  exhaustiveKinds?: string[];
  /** Relation kinds whose rows must be exactly the marked ones (default: none). */
  exhaustiveRelations?: string[];
  /** Whether the fixture must parse without any `index_errors` row (default true). */
  clean?: boolean;
  /** Extra checks on the indexed target. */
  check?: (db: DatabaseSync, run: Run) => Promise<void> | void;
}

interface RelationRow {
  kind: string;
  target: string;
  receiver: string | null;
  module: string | null;
  alias: string | null;
  path: string;
  line: number;
  from: string | null;
}

/** Indexes `files` as one fresh repository and hands the target and the action runner to `check`. */
async function withIndexed(
  files: Record<string, string>,
  check: (db: DatabaseSync, run: Run) => Promise<void> | void,
): Promise<void> {
  const root = fixtureRepository(files);
  await withWorkspace(root, async (workspace, run) => {
    await run("refresh");
    const db = openTarget(workspace);
    try {
      await check(db, run);
    } finally {
      db.close();
    }
  });
}

/** Indexes the files as one repository and checks every marker (and the exhaustive kinds). */
export async function checkFixture(
  files: Record<string, string>,
  options: FixtureOptions = {},
): Promise<void> {
  const markers = Object.entries(files).flatMap(([path, source]) => parseMarkers(path, source));
  assert.ok(markers.length > 0, "the fixture has markers");
  await withIndexed(files, async (db, run) => {
    if (options.clean ?? true) {
      const errors = db.prepare("SELECT path, message FROM index_errors").all();
      assert.equal(count(db, "index_errors"), 0, `parses cleanly: ${JSON.stringify(errors)}`);
    }
    const problems: string[] = [];
    for (const marker of markers.filter((m) => m.what === "def")) {
      const answer = await run("symbols", { query: simpleName(marker.target), limit: 200 });
      const hit = answer.results.find((result) =>
        result.symbol === marker.target && result.path === marker.path &&
        result.start_line === marker.line
      );
      if (!hit) {
        const near = answer.results.filter((r) => r.path === marker.path)
          .map((r) => `${r.symbol} ${r.kind} @${r.start_line}`);
        problems.push(
          `${marker.path}:${marker.line}: no symbol ${marker.target}; found ${
            near.join(", ") || "nothing"
          }`,
        );
      } else if (hit.kind !== marker.kind) {
        problems.push(
          `${marker.path}:${marker.line}: ${marker.target} is a ${hit.kind}, not a ${marker.kind}`,
        );
      }
    }
    const rows: RelationRow[] = relationFacts(db);
    const matched = new Set<RelationRow>();
    for (const marker of markers.filter((m) => m.what !== "def")) {
      const candidates = rows.filter((row) =>
        row.kind === marker.what && row.target === marker.target &&
        row.path === marker.path && row.line === marker.line
      );
      const hit = candidates.find((row) =>
        Object.entries(marker.fields).every(([field, value]) =>
          row[field as keyof RelationRow] === value
        )
      );
      if (hit) matched.add(hit);
      else {
        const near = rows.filter((row) => row.path === marker.path && row.line === marker.line)
          .map((row) =>
            `${row.kind} ${row.target} receiver=${row.receiver} module=${row.module} alias=${row.alias} from=${row.from}`
          );
        problems.push(
          `${marker.path}:${marker.line}: no ${marker.what} ${marker.target} ${
            JSON.stringify(marker.fields)
          }; on that line: ${near.join(" | ") || "nothing"}`,
        );
      }
    }
    for (const kind of options.exhaustiveKinds ?? []) {
      const marked = new Set(
        markers.filter((m) => m.what === "def" && m.kind === kind)
          .map((m) => `${m.path}:${m.line}:${m.target}`),
      );
      const indexed = db.prepare(
        `SELECT f.path, s.start_line AS line, s.qualified_name AS name
           FROM code_symbols s JOIN source_files f ON f.id = s.file_id WHERE s.kind = ?`,
      ).all(kind) as { path: string; line: number; name: string }[];
      for (const row of indexed) {
        if (!marked.has(`${row.path}:${row.line}:${row.name}`)) {
          problems.push(`${row.path}:${row.line}: unmarked ${kind} ${row.name}`);
        }
      }
    }
    for (const kind of options.exhaustiveRelations ?? []) {
      for (const row of rows.filter((r) => r.kind === kind && !matched.has(r))) {
        problems.push(`${row.path}:${row.line}: unmarked ${kind} ${row.target}`);
      }
    }
    assert.deepEqual(problems, [], `fixture mismatches:\n${problems.join("\n")}`);
    await options.check?.(db, run);
  });
}

/**
 * Indexes `before`, then `after`; the symbol moves but keeps its id (an id is made of the path,
 * qualified name, kind and ordinal, never of a position).
 */
export async function checkIdStability(options: {
  path: string;
  before: string;
  after: string;
  /** Qualified name of the symbol that must keep its id. */
  symbol: string;
}): Promise<void> {
  const root = fixtureRepository({ [options.path]: options.before });
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const find = async () => {
      const answer = await run("symbols", { query: simpleName(options.symbol), limit: 200 });
      const hit = answer.results.find((result) => result.symbol === options.symbol);
      assert.ok(hit, `${options.symbol} not found`);
      return { id: String(hit.symbol_id), line: Number(hit.start_line) };
    };
    const first = await find();
    writeFiles(root, { [options.path]: options.after });
    await run("refresh");
    const second = await find();
    assert.notEqual(second.line, first.line, "the symbol moved");
    assert.equal(second.id, first.id, "the symbol kept its id");
  });
}

/**
 * Indexes one file whose definition `symbol` is larger than a chunk and checks its chunks:
 * the first starts at `firstLine` (its doc comment / attributes) and reaches `bodyLine` (the
 * signature is never split), later windows overlap the previous one, and every chunk of the
 * definition carries its symbol path.
 */
export async function checkChunkBoundaries(options: {
  path: string;
  source: string;
  symbol: string;
  /** 1-based line where the definition's leading comment or attribute starts. */
  firstLine: number;
  /** 1-based line where the body starts (the end of the signature). */
  bodyLine: number;
}): Promise<void> {
  await withIndexed({ [options.path]: options.source }, (db) => {
    const chunks = db.prepare(
      `SELECT c.start_line, c.end_line, c.symbol_path FROM source_chunks c
         JOIN source_files f ON f.id = c.file_id WHERE f.path = ? ORDER BY c.start_line`,
    ).all(options.path) as { start_line: number; end_line: number; symbol_path: string }[];
    const own = chunks.filter((chunk) => chunk.symbol_path === options.symbol);
    assert.ok(own.length >= 2, `the definition is split: ${JSON.stringify(chunks)}`);
    assert.equal(own[0].start_line, options.firstLine, "the first chunk starts at the doc");
    assert.ok(own[0].end_line >= options.bodyLine, "the signature is not split");
    for (let i = 1; i < own.length; i++) {
      assert.ok(own[i].start_line > own[i - 1].start_line, "windows advance");
      assert.ok(own[i].start_line <= own[i - 1].end_line, "windows overlap");
    }
  });
}

/**
 * Indexes one file holding a syntax error: the file gets exactly one `syntax`
 * diagnostic, and `symbol` (a definition before the error) is still found.
 */
export async function checkSyntaxRecovery(options: {
  path: string;
  source: string;
  /** Qualified name of a definition tree-sitter recovers. */
  symbol: string;
}): Promise<void> {
  await withIndexed({ [options.path]: options.source }, async (db, run) => {
    const errors = db.prepare("SELECT path, stage, message FROM index_errors").all();
    assert.deepEqual(
      errors.map((e) => ({ path: e.path, stage: e.stage })),
      [{ path: options.path, stage: "syntax" }],
      JSON.stringify(errors),
    );
    const answer = await run("symbols", { query: simpleName(options.symbol), limit: 200 });
    assert.ok(
      answer.results.some((r) => r.symbol === options.symbol && r.path === options.path),
      `${options.symbol} not recovered; got ${answer.results.map((r) => r.symbol).join(", ")}`,
    );
  });
}
