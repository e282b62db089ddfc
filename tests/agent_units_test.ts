/** Pure parts of the agent actions: one-line summaries, the citations param and its CLI form. */
import assert from "node:assert/strict";
import {
  cleanSignature,
  firstSentence,
  moduleDocSentence,
  signatureLine,
} from "../src/actions/summaries.ts";
import { validateParams } from "../src/protocol/methods.ts";
import { WireError } from "../src/protocol/errors.ts";
import { actionFlags, actionParams, readsStdin, UsageError } from "../src/cli/flags.ts";

Deno.test("summaries: signatures lose trailing comments; values are not signatures", () => {
  assert.equal(
    cleanSignature("def _eval(self) -> bool: # Expr.is_comparable overrides this"),
    "def _eval(self) -> bool",
  );
  assert.equal(cleanSignature("def f(x='a # b'):"), "def f(x='a # b')");
  assert.equal(
    cleanSignature("export function f(\n  a: number,\n): string {"),
    "export function f( a: number, ): string",
  );
  assert.equal(cleanSignature(null), null);
  assert.equal(signatureLine({ kind: "variable", name: "oo", signature: "oo = S.Infinity" }), "oo");
  assert.equal(
    signatureLine({ kind: "field", name: "n", signature: "n: int | None = None" }),
    "n: int | None",
  );
  assert.equal(
    signatureLine({
      kind: "constant",
      name: "A",
      signature: "const A: Record<string, number> = {}",
    }),
    "const A: Record<string, number>",
  );
  assert.equal(
    signatureLine({ kind: "function", name: "f", signature: "def f(a=1, b=x == y)" }),
    "def f(a=1, b=x == y)",
  );
  assert.equal(signatureLine({ kind: "method", name: "g", signature: null }), "method g");
});

Deno.test("summaries: the first sentence of a doc, of a module docstring, of a leading comment", () => {
  assert.equal(firstSentence("Return one value.\n\nMore text."), "Return one value.");
  assert.equal(firstSentence("/**\n * Parse it. Then more.\n */"), "Parse it.");
  assert.equal(firstSentence("no full stop here"), "no full stop here");
  assert.equal(
    moduleDocSentence('#!/usr/bin/env python\n"""Core handling.\n\nMore."""\nx = 1\n'),
    "Core handling.",
  );
  assert.equal(moduleDocSentence("'''One line doc.'''\n"), "One line doc.");
  assert.equal(moduleDocSentence("/**\n * The module. Details.\n */\nexport {}\n"), "The module.");
  assert.equal(moduleDocSentence("//! Crate docs here.\nfn main() {}\n"), "Crate docs here.");
  assert.equal(moduleDocSentence("// Copyright 2024 Someone\n// License MIT\npackage x\n"), null);
  assert.equal(moduleDocSentence("import os\n"), null);
});

Deno.test("citations: each record checked field by field, named by its index", () => {
  const ok = validateParams("verify", {
    citations: [{
      path: "a.py",
      start_line: 1,
      end_line: 2,
      symbol: "f",
      text: "x",
      claim: "f calls g",
    }],
  });
  assert.equal(ok.citations[0].path, "a.py");
  const refused = (citations: unknown, pattern: RegExp) =>
    assert.throws(
      () => validateParams("verify", { citations }),
      (error: unknown) => error instanceof WireError && pattern.test(error.message),
    );
  refused("a.py:1", /must be a list of objects/);
  refused([{ start_line: 1 }], /'citations\[0\]' needs 'path'/);
  refused(
    [{ path: "a" }, { path: "b", start_line: 0 }],
    /'citations\[1\]\.start_line' must be at least 1/,
  );
  refused([{ path: "a", lines: 3 }], /'citations\[0\]' has no field 'lines'/);
  refused(["a.py"], /'citations\[0\]' must be an object/);
  assert.throws(
    () =>
      validateParams("verify", { citations: Array.from({ length: 1001 }, () => ({ path: "a" })) }),
    (error: unknown) => error instanceof WireError && error.name === "LimitExceeded",
  );
});

Deno.test("citations on the command line: a JSON argument, '-' for stdin, one object or a list", () => {
  const flags = actionFlags();
  // The CLI also reconciles first (refresh: true) unless told --no-refresh.
  const params = (rest: string[], stdin?: string) => {
    const { refresh, ...rest2 } = actionParams({
      action: "verify",
      rest,
      values: {},
      flags,
      stdin,
    });
    assert.equal(refresh, true);
    return rest2;
  };
  assert.deepEqual(params(['[{"path":"a.py","start_line":3}]']), {
    citations: [{ path: "a.py", start_line: 3 }],
  });
  assert.deepEqual(params(['{"path":"a.py"}']), { citations: [{ path: "a.py" }] });
  assert.deepEqual(params(["-"], '[{"path":"b.py"}]'), { citations: [{ path: "b.py" }] });
  assert.ok(readsStdin("verify", ["-"], {}));
  assert.ok(!readsStdin("verify", ['[{"path":"a"}]'], {}));
  assert.ok(!readsStdin("search", ["-"], {}));
  assert.throws(() => params(["[1, 2]"]), UsageError);
  assert.throws(() => params(["-"], "not json"), /from standard input/);
  const flag = actionParams({
    action: "verify",
    rest: [],
    values: { citations: '[{"path":"c.py"}]' },
    flags,
  });
  assert.deepEqual(flag, { citations: [{ path: "c.py" }], refresh: true });
});
