import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  codeTerms,
  compactIdentifier,
  ftsMatchExpression,
  identifierParts,
  queryTerms,
} from "../src/engine/tokenizer.ts";

/** The terms of a text as a set: repeats do not matter to these assertions. */
function termSet(text: string): Set<string> {
  return new Set(codeTerms(text));
}

Deno.test("tokenizer: camelCase and PascalCase yield the compact identifier and each part", () => {
  assert.deepEqual(codeTerms("parseConfigFile"), ["parseconfigfile", "parse", "config", "file"]);
  assert.deepEqual(codeTerms("HTTPServer"), ["httpserver", "http", "server"]);
  assert.deepEqual(codeTerms("XMLHttpRequest"), ["xmlhttprequest", "xml", "http", "request"]);
});

Deno.test("tokenizer: snake_case, kebab-case and SCREAMING_CASE compact like camelCase", () => {
  const camel = codeTerms("parseConfigFile");
  assert.deepEqual(codeTerms("parse_config_file"), camel);
  assert.deepEqual(codeTerms("parse-config-file"), camel);
  assert.deepEqual(codeTerms("PARSE_CONFIG_FILE"), camel);
  assert.deepEqual(codeTerms("MAX_RETRY_COUNT"), ["maxretrycount", "max", "retry", "count"]);
});

Deno.test("tokenizer: digits split from letters", () => {
  assert.deepEqual(codeTerms("base64Encode"), ["base64encode", "base", "64", "encode"]);
  assert.deepEqual(codeTerms("sha256Hex"), ["sha256hex", "sha", "256", "hex"]);
  // `utf8` stays searchable whole; its single-digit part is too short to be a term.
  assert.deepEqual(codeTerms("utf8"), ["utf8", "utf"]);
  assert.deepEqual(identifierParts("HTTPServer2Go"), ["http", "server", "2", "go"]);
});

Deno.test("tokenizer: dotted paths are kept whole (compact) and split", () => {
  assert.equal(codeTerms("os.path.join")[0], "ospathjoin");
  assert.deepEqual(termSet("os.path.join"), new Set(["ospathjoin", "os", "path", "join"]));
  assert.equal(compactIdentifier("os.path.join"), "ospathjoin");
});

Deno.test("tokenizer: :: paths are kept whole (compact) and split", () => {
  assert.equal(codeTerms("std::io::Read")[0], "stdioread");
  assert.deepEqual(termSet("std::io::Read"), new Set(["stdioread", "std", "io", "read"]));
});

Deno.test("tokenizer: short identifiers are kept, single letters dropped", () => {
  assert.deepEqual(codeTerms("import os; x = id(io); a b c"), ["import", "os", "id", "io"]);
  assert.deepEqual(codeTerms("user_id"), ["userid", "user", "id"]);
  assert.deepEqual(codeTerms("IOError"), ["ioerror", "io", "error"]);
});

Deno.test("tokenizer: non-Latin identifiers are whole terms and split by case", () => {
  assert.deepEqual(codeTerms("größe"), ["größe"]);
  assert.deepEqual(codeTerms("Größe"), ["größe"]);
  assert.deepEqual(codeTerms("данные"), ["данные"]);
  assert.deepEqual(codeTerms("данныеПользователя"), [
    "данныепользователя",
    "данные",
    "пользователя",
  ]);
  assert.deepEqual(codeTerms("größeBerechnen"), ["größeberechnen", "größe", "berechnen"]);
});

Deno.test("tokenizer: codeTerms keeps the order of appearance", () => {
  assert.deepEqual(codeTerms("def load_user(user_id): return db"), [
    "def",
    "loaduser",
    "load",
    "user",
    "userid",
    "user",
    "id",
    "return",
    "db",
  ]);
});

Deno.test("queryTerms: stop words are removed", () => {
  assert.deepEqual(queryTerms("how do I parse the config file"), ["parse", "config", "file"]);
  assert.deepEqual(queryTerms("the and of it"), []);
});

Deno.test("queryTerms: repeated terms appear once, in first-seen order", () => {
  assert.deepEqual(queryTerms("Parse the config and parse_config, then PARSE it"), [
    "parse",
    "config",
    "parseconfig",
  ]);
});

Deno.test("queryTerms: at most `max` terms", () => {
  assert.deepEqual(queryTerms("alpha beta gamma delta", 2), ["alpha", "beta"]);
  const many = Array.from({ length: 500 }, (_, i) => `word${i}`).join(" ");
  assert.equal(queryTerms(many).length, 64);
});

Deno.test("ftsMatchExpression: nothing searchable is null", () => {
  assert.equal(ftsMatchExpression([]), null);
  assert.equal(ftsMatchExpression(queryTerms("the of (((")), null);
});

Deno.test("ftsMatchExpression: every term is a quoted phrase, ORed", () => {
  assert.equal(ftsMatchExpression(["parse", "config"]), `"parse" OR "config"`);
});

Deno.test("ftsMatchExpression: quotes inside a term are doubled", () => {
  assert.equal(ftsMatchExpression(['say"hi']), `"say""hi"`);
  assert.equal(ftsMatchExpression(['"']), `""""`);
});

Deno.test("ftsMatchExpression: FTS5 operators are quoted as plain words", () => {
  assert.equal(
    ftsMatchExpression(["NEAR", "AND", "OR", "NOT"]),
    `"NEAR" OR "AND" OR "OR" OR "NOT"`,
  );
  assert.equal(ftsMatchExpression(["NEAR(a b)", "col:val"]), `"NEAR(a b)" OR "col:val"`);
});

/** An FTS5 table configured like the index's `source_chunks_fts`. */
function ftsTable(documents: string[]): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  db.exec(
    `CREATE VIRTUAL TABLE t USING fts5(terms, tokenize = "unicode61 remove_diacritics 2 tokenchars '_'")`,
  );
  const insert = db.prepare("INSERT INTO t(terms) VALUES (?)");
  for (const document of documents) insert.run(codeTerms(document).join(" "));
  return db;
}

function matches(db: DatabaseSync, expression: string): number {
  const row = db.prepare("SELECT count(*) AS n FROM t WHERE t MATCH ?").get(expression);
  return Number((row as { n: number }).n);
}

const HOSTILE = [
  '"',
  '""',
  "*",
  "NEAR(a b)",
  "NEAR",
  "-x",
  "col:val",
  "nosuchcolumn:x",
  "(((",
  ")))",
  "a AND",
  "OR OR",
  "NOT x",
  "^start",
  "x*",
  "{terms}: x",
  "+",
  "'; DROP TABLE t; --",
  "größe",
];

Deno.test("FTS5 accepts the expression of any hostile query (real FTS5 table)", () => {
  const db = ftsTable(["def parse_config(path): return os.path.join(a, b)"]);
  try {
    let searched = 0;
    for (const input of HOSTILE) {
      const expression = ftsMatchExpression(queryTerms(input));
      if (expression === null) continue;
      searched++;
      assert.doesNotThrow(() => matches(db, expression), `query ${JSON.stringify(input)}`);
    }
    assert.ok(searched >= 5, "most hostile queries still have searchable terms");
  } finally {
    db.close();
  }
});

Deno.test("FTS5 accepts hostile strings passed straight in as terms (real FTS5 table)", () => {
  const db = ftsTable(["def parse_config(path): return os.path.join(a, b)"]);
  try {
    for (const input of HOSTILE) {
      const expression = ftsMatchExpression([input, "parse"])!;
      assert.equal(matches(db, expression), 1, `term ${JSON.stringify(input)}`);
    }
  } finally {
    db.close();
  }
});

Deno.test("FTS5 operator words in a query cannot change its meaning (real FTS5 table)", () => {
  const db = ftsTable(["alpha beta", "gamma near delta"]);
  try {
    // Unquoted, `alpha NOT beta` would exclude the first row; quoted, it is three alternatives.
    assert.equal(matches(db, ftsMatchExpression(["alpha", "NOT", "beta"])!), 1);
    // `NEAR` is just the word near.
    assert.equal(matches(db, ftsMatchExpression(["NEAR"])!), 1);
    // A column filter on a column that does not exist is an error only when unquoted.
    assert.throws(() => matches(db, "nosuchcolumn:alpha"));
    assert.equal(matches(db, ftsMatchExpression(["nosuchcolumn:alpha"])!), 0);
  } finally {
    db.close();
  }
});

Deno.test("FTS5 accepts the expression of 100 KB of text (real FTS5 table)", () => {
  const db = ftsTable(["lorem ipsum parseConfig"]);
  try {
    const prose = 'lorem ipsum parseConfig "(( NEAR -x col:val * '.repeat(2400);
    assert.ok(prose.length >= 100_000);
    assert.equal(matches(db, ftsMatchExpression(queryTerms(prose))!), 1);
    // Every printable ASCII character, in a scrambled order.
    const noise = Array.from(
      { length: 100_000 },
      (_, i) => String.fromCharCode(32 + (i * 7919) % 95),
    ).join("");
    assert.doesNotThrow(() => matches(db, ftsMatchExpression(queryTerms(noise))!));
    // Even without the query-term cap, the expression of all the terms is accepted.
    assert.doesNotThrow(() => matches(db, ftsMatchExpression(codeTerms(noise))!));
  } finally {
    db.close();
  }
});

Deno.test("FTS5 finds diacritic and non-Latin terms through the tokenizer (real FTS5 table)", () => {
  const db = ftsTable(["größe = данные"]);
  try {
    assert.equal(matches(db, ftsMatchExpression(queryTerms("Größe"))!), 1);
    assert.equal(matches(db, ftsMatchExpression(queryTerms("данные"))!), 1);
  } finally {
    db.close();
  }
});

Deno.test("codeTerms: a dotted path indexes each segment once", () => {
  const terms = codeTerms("os.path.join");
  assert.deepEqual(terms.filter((term) => term === "path").length, 1);
  assert.deepEqual(new Set(terms).size, terms.length);
});
