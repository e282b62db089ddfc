/**
 * Language fixtures, rust-analyzer style: each definition in a fixture is
 * followed by a marker comment naming the qualified name and kind the index
 * must report for it.
 *
 *     class Greeter(Base):
 *     #   ^ def: pkg.mod.Greeter class
 *
 * The marker refers to the line above it, where the definition starts.
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
import { checkFixture } from "./_lang_fixture.ts";

type Run = (action: string, params?: Record<string, unknown>) => Promise<Envelope>;

interface ExpectedDefinition {
  /** 1-based line where the definition starts. */
  line: number;
  symbol: string;
  kind: string;
}

const MARKER = /^\s*(?:#|\/\/)\s*\^\s*def:\s*(\S+)\s+(\w+)\s*$/;

/** The definitions a fixture's markers announce. */
function expectedDefinitions(source: string): ExpectedDefinition[] {
  const expected: ExpectedDefinition[] = [];
  source.split("\n").forEach((text, index) => {
    const marker = MARKER.exec(text);
    // The marker sits on 0-based line `index`: the definition is the 1-based line `index`.
    if (marker) expected.push({ line: index, symbol: marker[1], kind: marker[2] });
  });
  return expected;
}

/** The 1-based line of the only line of `source` containing `snippet`. */
function lineOf(source: string, snippet: string): number {
  const lines = source.split("\n");
  const found = lines.flatMap((text, index) => text.includes(snippet) ? [index + 1] : []);
  assert.equal(found.length, 1, `${JSON.stringify(snippet)} occurs ${found.length} times`);
  return found[0];
}

/** Indexes a one-file repository and hands its target and runner to `check`. */
async function withIndexedFile(
  path: string,
  source: string,
  check: (db: DatabaseSync, run: Run) => Promise<void> | void,
): Promise<void> {
  const root = fixtureRepository({ [path]: source });
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

/** The last segment of a qualified name: what a user types into `symbols`. */
function simpleName(symbol: string): string {
  return symbol.slice(symbol.lastIndexOf(".") + 1);
}

/**
 * Indexes the fixture and checks that every marked definition is found by the
 * `symbols` action with its qualified name, kind and line, and that no
 * function, method or class was indexed without a marker.
 */
async function checkDefinitions(path: string, source: string): Promise<void> {
  const expected = expectedDefinitions(source);
  assert.ok(expected.length > 0, "the fixture has markers");
  await withIndexedFile(path, source, async (db, run) => {
    assert.equal(count(db, "index_errors"), 0, "the fixture parses cleanly");
    for (const definition of expected) {
      const answer = await run("symbols", { query: simpleName(definition.symbol), limit: 100 });
      const hit = answer.results.find((result) => result.symbol === definition.symbol);
      assert.ok(
        hit,
        `${definition.symbol} not found; got ${answer.results.map((r) => r.symbol).join(", ")}`,
      );
      assert.deepEqual(
        { symbol: hit.symbol, kind: hit.kind, start_line: hit.start_line, path: hit.path },
        { symbol: definition.symbol, kind: definition.kind, start_line: definition.line, path },
      );
    }
    const indexed = db.prepare(
      `SELECT qualified_name AS symbol, kind, start_line AS line FROM code_symbols
        WHERE kind IN ('function', 'method', 'class') ORDER BY start_line, qualified_name`,
    ).all() as unknown as ExpectedDefinition[];
    const marked = expected.filter((definition) =>
      ["function", "method", "class"].includes(definition.kind)
    );
    assert.deepEqual(
      indexed.map((row) => ({ ...row })),
      marked.sort((a, b) => a.line - b.line || a.symbol.localeCompare(b.symbol)),
      "functions, methods and classes are exactly the marked ones",
    );
  });
}

interface Relation {
  target: string;
  receiver?: string | null;
  module?: string | null;
  alias?: string | null;
  line: number;
  from: string | null;
}

/** Relations of one kind, in source order, with the qualified name of the enclosing symbol. */
function relations(db: DatabaseSync, kind: string): Relation[] {
  return relationFacts(db).filter((row) => row.kind === kind).map((
    { target, receiver, module, alias, line, from },
  ) => ({ target, receiver, module, alias, line, from }));
}

/** Calls as (target, receiver, line, from). */
function calls(db: DatabaseSync): Relation[] {
  return relations(db, "calls").map(({ target, receiver, line, from }) => ({
    target,
    receiver,
    line,
    from,
  }));
}

/** Imports as (target, module, alias, line). */
function imports(db: DatabaseSync): Relation[] {
  return relations(db, "imports").map(({ target, module, alias, line, from }) => ({
    target,
    module,
    alias,
    line,
    from,
  }));
}

/** Inherits or implements as (target, line, from). */
function bases(db: DatabaseSync, kind: "inherits" | "implements"): Relation[] {
  return relations(db, kind).map(({ target, line, from }) => ({ target, line, from }));
}

// ---------------------------------------------------------------- Python

const PYTHON = `"""Greeting helpers."""
import os
import numpy as np
from collections import OrderedDict as OD, defaultdict
from .sibling import *

MAX_SIZE = 10
# ^ def: pkg.mod.MAX_SIZE constant


class Base:
#   ^ def: pkg.mod.Base class
    pass


class Greeter(Base, metaclass=Meta):
#   ^ def: pkg.mod.Greeter class
    """Says hello."""
    greeting = "hi"
    # ^ def: pkg.mod.Greeter.greeting field

    def __init__(self, name):
    #   ^ def: pkg.mod.Greeter.__init__ method
        self.name = name

    def greet(self, other):
    #   ^ def: pkg.mod.Greeter.greet method
        def shout(text):
        #   ^ def: pkg.mod.Greeter.greet.shout function
            return text.upper()
        return shout(self.format(other)) + os.path.join("a", "b")

    @staticmethod
    def make():
    #   ^ def: pkg.mod.Greeter.make method
        return Greeter("x")


class Repository(abc.ABC, Generic[T]):
#   ^ def: pkg.mod.Repository class
    pass


async def run_all(items):
#         ^ def: pkg.mod.run_all function
    for item in items:
        await item.go()
`;

Deno.test("python: every marked definition is a symbol with its dotted qualified name", async () => {
  await checkDefinitions("pkg/mod.py", PYTHON);
});

Deno.test("python: calls record the target as written and its receiver", async () => {
  await withIndexedFile("pkg/mod.py", PYTHON, (db) => {
    const greet = lineOf(PYTHON, "return shout(");
    assert.deepEqual(calls(db), [
      {
        target: "upper",
        receiver: "text",
        line: lineOf(PYTHON, "text.upper()"),
        from: "pkg.mod.Greeter.greet.shout",
      },
      { target: "shout", receiver: null, line: greet, from: "pkg.mod.Greeter.greet" },
      { target: "format", receiver: "self", line: greet, from: "pkg.mod.Greeter.greet" },
      { target: "join", receiver: "os.path", line: greet, from: "pkg.mod.Greeter.greet" },
      {
        target: "Greeter",
        receiver: null,
        line: lineOf(PYTHON, 'Greeter("x")'),
        from: "pkg.mod.Greeter.make",
      },
      {
        target: "go",
        receiver: "item",
        line: lineOf(PYTHON, "item.go()"),
        from: "pkg.mod.run_all",
      },
    ]);
  });
});

Deno.test("python: imports record module, imported name and alias", async () => {
  await withIndexedFile("pkg/mod.py", PYTHON, (db) => {
    const collections = lineOf(PYTHON, "from collections");
    assert.deepEqual(imports(db), [
      { target: "os", module: "os", alias: null, line: 2, from: null },
      { target: "numpy", module: "numpy", alias: "np", line: 3, from: null },
      { target: "OrderedDict", module: "collections", alias: "OD", line: collections, from: null },
      { target: "defaultdict", module: "collections", alias: null, line: collections, from: null },
      { target: "*", module: ".sibling", alias: null, line: 5, from: null },
    ]);
  });
});

Deno.test("python: base classes are inherits relations (keyword arguments are not)", async () => {
  await withIndexedFile("pkg/mod.py", PYTHON, (db) => {
    const repository = lineOf(PYTHON, "class Repository");
    assert.deepEqual(bases(db, "inherits"), [
      { target: "Base", line: lineOf(PYTHON, "class Greeter"), from: "pkg.mod.Greeter" },
      { target: "abc.ABC", line: repository, from: "pkg.mod.Repository" },
      { target: "Generic", line: repository, from: "pkg.mod.Repository" },
    ]);
  });
});

Deno.test("python: a package's __init__.py names its symbols after the package", async () => {
  const source = "def top():\n# ^ def: pkg.sub.top function\n    pass\n";
  await checkDefinitions("pkg/sub/__init__.py", source);
});

// ------------------------------------------------------------ TypeScript

const TYPESCRIPT = `import { readFile as rf, writeFile } from "node:fs";
import * as path from "node:path";
import Default from "./default";
export { helper as assist } from "./helpers";

export interface Shape extends Base<number> {
//               ^ def: src/app.Shape interface
  area(): number;
//^ def: src/app.Shape.area method
}

export abstract class Square extends Rect implements Shape, Named<string> {
//                    ^ def: src/app.Square class
  side = 1;
//^ def: src/app.Square.side field
  constructor(side: number) {
//^ def: src/app.Square.constructor method
    super();
    this.side = side;
  }
  area(): number {
//^ def: src/app.Square.area method
    return this.side * this.side;
  }
  #secret(): string {
//^ def: src/app.Square.#secret method
    return path.join("a", Default.name);
  }
  abstract draw(): void;
//^ def: src/app.Square.draw method
}

export function makeSquare(n: number): Square {
//              ^ def: src/app.makeSquare function
  const inner = () => n;
//      ^ def: src/app.makeSquare.inner function
  return new Square(inner());
}

export const double = async (x: number) => x * 2;
//           ^ def: src/app.double function
export type Alias = string | number;
//          ^ def: src/app.Alias type
enum Color { Red, Green }
//   ^ def: src/app.Color enum
`;

Deno.test("typescript: every marked definition is a symbol with its path-based qualified name", async () => {
  await checkDefinitions("src/app.ts", TYPESCRIPT);
});

Deno.test("typescript: calls record the target as written and its receiver", async () => {
  await withIndexedFile("src/app.ts", TYPESCRIPT, (db) => {
    const construct = lineOf(TYPESCRIPT, "new Square(inner())");
    assert.deepEqual(calls(db), [
      {
        target: "join",
        receiver: "path",
        line: lineOf(TYPESCRIPT, "path.join("),
        from: "src/app.Square.#secret",
      },
      { target: "Square", receiver: null, line: construct, from: "src/app.makeSquare" },
      { target: "inner", receiver: null, line: construct, from: "src/app.makeSquare" },
    ]);
  });
});

Deno.test("typescript: imports and re-exports record module, imported name and alias", async () => {
  await withIndexedFile("src/app.ts", TYPESCRIPT, (db) => {
    assert.deepEqual(imports(db), [
      { target: "readFile", module: "node:fs", alias: "rf", line: 1, from: null },
      { target: "writeFile", module: "node:fs", alias: null, line: 1, from: null },
      { target: "*", module: "node:path", alias: "path", line: 2, from: null },
      // A default import binds the module itself under the alias.
      { target: "./default", module: "./default", alias: "Default", line: 3, from: null },
      { target: "helper", module: "./helpers", alias: "assist", line: 4, from: null },
    ]);
  });
});

Deno.test("typescript: extends is inherits, implements is implements", async () => {
  await withIndexedFile("src/app.ts", TYPESCRIPT, (db) => {
    const square = lineOf(TYPESCRIPT, "class Square");
    assert.deepEqual(bases(db, "inherits"), [
      { target: "Base", line: lineOf(TYPESCRIPT, "interface Shape"), from: "src/app.Shape" },
      { target: "Rect", line: square, from: "src/app.Square" },
    ]);
    assert.deepEqual(bases(db, "implements"), [
      { target: "Shape", line: square, from: "src/app.Square" },
      { target: "Named", line: square, from: "src/app.Square" },
    ]);
  });
});

// ------------------------------------------------------------------- TSX

const TSX = `import React, { useState } from "react";

export function App({ name }: { name: string }) {
//              ^ def: web/view.App function
  const [count, setCount] = useState(0);
  return <div onClick={() => setCount(count + 1)}>{name.trim()}</div>;
}

class Widget extends React.Component<Props> {
//    ^ def: web/view.Widget class
  render() {
//^ def: web/view.Widget.render method
    return <App name={this.props.label} />;
  }
}

export const Button = (props: Props) => <button>{props.label.toUpperCase()}</button>;
//           ^ def: web/view.Button function
`;

Deno.test("tsx: every marked definition is a symbol, JSX and all", async () => {
  await checkDefinitions("web/view.tsx", TSX);
});

Deno.test("tsx: calls inside JSX, imports and a member-expression base class", async () => {
  await withIndexedFile("web/view.tsx", TSX, (db) => {
    const jsx = lineOf(TSX, "onClick");
    assert.deepEqual(calls(db), [
      {
        target: "useState",
        receiver: null,
        line: lineOf(TSX, "useState(0)"),
        from: "web/view.App",
      },
      { target: "setCount", receiver: null, line: jsx, from: "web/view.App" },
      { target: "trim", receiver: "name", line: jsx, from: "web/view.App" },
      {
        target: "toUpperCase",
        receiver: "props.label",
        line: lineOf(TSX, "toUpperCase"),
        from: "web/view.Button",
      },
    ]);
    assert.deepEqual(imports(db), [
      { target: "react", module: "react", alias: "React", line: 1, from: null },
      { target: "useState", module: "react", alias: null, line: 1, from: null },
    ]);
    assert.deepEqual(bases(db, "inherits"), [
      { target: "React.Component", line: lineOf(TSX, "class Widget"), from: "web/view.Widget" },
    ]);
  });
});

// ------------------------------------------------------------ JavaScript

const JAVASCRIPT = `const fs = require("fs");
const { join, resolve: res } = require("path");

class Store extends EventEmitter {
//    ^ def: lib/store.Store class
  constructor() {
//^ def: lib/store.Store.constructor method
    super();
    this.items = [];
  }
  static create() {
//^ def: lib/store.Store.create method
    return new Store();
  }
  save(item) {
//^ def: lib/store.Store.save method
    this.items.push(item);
    fs.writeFileSync(join("data", item.name), res(item.body));
  }
}

function helper(list) {
//       ^ def: lib/store.helper function
  return list.map((x) => x * 2);
}

const named = function inner() {};
//    ^ def: lib/store.named function

module.exports = { Store, helper };
`;

Deno.test("javascript: every marked definition is a symbol with its path-based qualified name", async () => {
  await checkDefinitions("lib/store.js", JAVASCRIPT);
});

Deno.test("javascript: calls record the target as written and its receiver", async () => {
  await withIndexedFile("lib/store.js", JAVASCRIPT, (db) => {
    const write = lineOf(JAVASCRIPT, "fs.writeFileSync");
    assert.deepEqual(calls(db), [
      { target: "require", receiver: null, line: 1, from: null },
      { target: "require", receiver: null, line: 2, from: null },
      {
        target: "Store",
        receiver: null,
        line: lineOf(JAVASCRIPT, "new Store()"),
        from: "lib/store.Store.create",
      },
      {
        target: "push",
        receiver: "this.items",
        line: lineOf(JAVASCRIPT, "this.items.push"),
        from: "lib/store.Store.save",
      },
      { target: "writeFileSync", receiver: "fs", line: write, from: "lib/store.Store.save" },
      { target: "join", receiver: null, line: write, from: "lib/store.Store.save" },
      { target: "res", receiver: null, line: write, from: "lib/store.Store.save" },
      {
        target: "map",
        receiver: "list",
        line: lineOf(JAVASCRIPT, "list.map"),
        from: "lib/store.helper",
      },
    ]);
  });
});

Deno.test("javascript: require() bindings are imports; extends is inherits", async () => {
  await withIndexedFile("lib/store.js", JAVASCRIPT, (db) => {
    assert.deepEqual(imports(db), [
      { target: "fs", module: "fs", alias: "fs", line: 1, from: null },
      { target: "join", module: "path", alias: null, line: 2, from: null },
      { target: "resolve", module: "path", alias: "res", line: 2, from: null },
    ]);
    assert.deepEqual(bases(db, "inherits"), [
      { target: "EventEmitter", line: lineOf(JAVASCRIPT, "class Store"), from: "lib/store.Store" },
    ]);
  });
});

// ------------------------------------------------------------ Stability

function symbolId(answer: Envelope, symbol: string): string {
  const hit = answer.results.find((result) => result.symbol === symbol);
  assert.ok(hit, `${symbol} not found`);
  return String(hit.symbol_id);
}

Deno.test("a symbol keeps its id when a function is inserted above it", async () => {
  const before = "def stable(x):\n    return x\n";
  const root = fixtureRepository({ "pkg/mod.py": before });
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const first = await run("symbols", { query: "stable" });
    writeFiles(root, {
      "pkg/mod.py": "def inserted(y):\n    return y * 2\n\n\n" + before,
    });
    await run("refresh");
    const second = await run("symbols", { query: "stable" });
    assert.equal(second.results[0].start_line, 5, "the function moved down");
    assert.equal(symbolId(second, "pkg.mod.stable"), symbolId(first, "pkg.mod.stable"));
  });
});

Deno.test("a method keeps its id when a method is inserted above it", async () => {
  const method = "  stable(): number {\n    return 1;\n  }\n";
  const root = fixtureRepository({ "src/a.ts": `export class Box {\n${method}}\n` });
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const first = await run("symbols", { query: "stable" });
    writeFiles(root, {
      "src/a.ts": `export class Box {\n  inserted(): void {}\n\n${method}}\n`,
    });
    await run("refresh");
    const second = await run("symbols", { query: "stable" });
    assert.equal(second.results[0].start_line, 4, "the method moved down");
    assert.equal(symbolId(second, "src/a.Box.stable"), symbolId(first, "src/a.Box.stable"));
  });
});

// ---------------------------------------------------------- Syntax errors

Deno.test("a file with a syntax error keeps its other definitions and records the error", async () => {
  const source = `def good_one():
    return 1

def broken(:
    pass

class StillHere:
    def method(self):
        return 2
`;
  await withIndexedFile("pkg/mod.py", source, async (db, run) => {
    for (const symbol of ["pkg.mod.good_one", "pkg.mod.StillHere", "pkg.mod.StillHere.method"]) {
      const answer = await run("symbols", { query: simpleName(symbol) });
      assert.ok(answer.results.some((result) => result.symbol === symbol), `${symbol} kept`);
    }
    const errors = db.prepare("SELECT path, stage, message FROM index_errors").all()
      .map((row) => ({ ...row }));
    assert.equal(errors.length, 1);
    assert.equal(errors[0].path, "pkg/mod.py");
    assert.equal(errors[0].stage, "syntax");
    assert.match(String(errors[0].message), /line 4/);
  });
});

// ------------------------------------------------------- Reads and writes

Deno.test("python: attribute writes and reads, global writes and annotated types", async () => {
  await checkFixture({
    "pkg/counter.py": `COUNT = 0


class Counter:
    def bump(self, step: Step) -> Result:
    # ^ type_of: Step from=pkg.counter.Counter.bump
    # ^ type_of: Result from=pkg.counter.Counter.bump
        global COUNT
        # ^ writes: COUNT receiver=- from=pkg.counter.Counter.bump
        self.total = step.size
        # ^ writes: total receiver=self from=pkg.counter.Counter.bump
        # ^ reads: size receiver=step from=pkg.counter.Counter.bump
        self.hits += 1
        # ^ writes: hits receiver=self from=pkg.counter.Counter.bump
        print(self.total)
        # ^ reads: total receiver=self from=pkg.counter.Counter.bump
        return self.label
        # ^ reads: label receiver=self from=pkg.counter.Counter.bump
`,
  }, { exhaustiveRelations: ["reads", "writes"] });
});

Deno.test("typescript and javascript: member writes and reads, name writes", async () => {
  const source = (typed: boolean) =>
    `let count = 0;
export class Box {
  label = "";
  put(item${typed ? ": Item" : ""}) {
    count = 1;
//  ^ writes: count receiver=- from=src/box.Box.put
    this.label = item.name;
//  ^ writes: label receiver=this from=src/box.Box.put
//  ^ reads: name receiver=item from=src/box.Box.put
    this.size += 1;
//  ^ writes: size receiver=this from=src/box.Box.put
    log(this.label);
//  ^ reads: label receiver=this from=src/box.Box.put
    return this.size;
//  ^ reads: size receiver=this from=src/box.Box.put
  }
}
`;
  await checkFixture({ "src/box.ts": source(true) }, {
    exhaustiveRelations: ["reads", "writes"],
  });
  await checkFixture({ "src/box.js": source(false) }, {
    exhaustiveRelations: ["reads", "writes"],
  });
});

Deno.test("every reference site is kept; TS overload signatures and Python TYPE_CHECKING definitions", async () => {
  await checkFixture({
    "src/over.ts": `export class Box {
  put(item: string): void;
//^ def: src/over.Box.put method
  put(item: number): void;
//^ def: src/over.Box.put method
  put(item: unknown) {
//^ def: src/over.Box.put method
    log(item, item);
//      ^ references: item from=src/over.Box.put
  }
}
`,
    "pkg/types.py": `from typing import TYPE_CHECKING

if TYPE_CHECKING:
    Alias = int
    # ^ def: pkg.types.Alias variable

    def helper():
    # ^ def: pkg.types.helper function
        pass
`,
  }, {
    check: (db) => {
      const sites = relationFacts(db).filter((row) =>
        row.path === "src/over.ts" && row.kind === "references" && row.target === "item"
      );
      assert.equal(sites.length, 2, "both uses of item on one line are stored");
    },
  });
});

Deno.test("javascript: CommonJS, prototype and object-literal functions are definitions", async () => {
  await checkFixture({
    "lib/app.js": `var users = {
// ^ def: lib/app.users variable
  show: function (req) { return req; },
  // ^ def: lib/app.users.show function
  list(req) { return req; },
  // ^ def: lib/app.users.list method
};
exports.html = function (x) { return x; };
// ^ def: lib/app.exports.html method
app.render = function render(name) { return name; };
// ^ def: lib/app.app.render method
View.prototype.lookup = function (name) { return name; };
// ^ def: lib/app.View.lookup method
module.exports.helper = () => 3;
// ^ def: lib/app.module.exports.helper method
module.exports = function create() {};
`,
  }, { exhaustiveKinds: ["function", "method"] });
});
