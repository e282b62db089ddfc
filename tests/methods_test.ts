/** The method descriptors: complete for help text and schemas, and typed for the dispatch table. */
import assert from "node:assert/strict";
import {
  DESCRIPTORS,
  isMethodName,
  type MethodParams,
  METHODS,
  validateParams,
} from "../src/protocol/methods.ts";
import { WireError } from "../src/protocol/errors.ts";

Deno.test("every descriptor names itself, its result type and a declared positional argument", () => {
  for (const [name, descriptor] of Object.entries(METHODS)) {
    assert.equal(descriptor.name, name);
    assert.match(descriptor.resultType, /^Envelope(<\w+>)?$/, name);
    assert.ok(descriptor.summary.length > 0 && descriptor.description.length > 0, name);
    if (descriptor.argument) assert.ok(descriptor.argument in descriptor.params, name);
    for (const [field, spec] of Object.entries(descriptor.params)) {
      assert.ok(spec.description.length > 0, `${name}.${field}`);
    }
    assert.ok(isMethodName(name));
  }
  assert.ok(!isMethodName("toString"));
  assert.equal(Object.keys(DESCRIPTORS).length, Object.keys(METHODS).length);
});

Deno.test("validated params have the type their field specs describe", () => {
  const params: MethodParams<"search"> = validateParams("search", {
    query: "retry",
    strategy: "lexical",
    limit: 3,
  });
  assert.equal(params.query, "retry");
  const strategy: "hybrid" | "lexical" | "vector" | undefined = params.strategy;
  assert.equal(strategy, "lexical");
  // @ts-expect-error a required field is required by the type too
  const missing: MethodParams<"search"> = { limit: 3 };
  assert.ok(missing);
  // @ts-expect-error a oneOf field takes only its values
  const wrong: MethodParams<"search"> = { query: "x", strategy: "psychic" };
  assert.ok(wrong);
  assert.throws(() => validateParams("search", { query: "x", strategy: "psychic" }), WireError);
  assert.throws(() => validateParams("status", { nope: 1 }), /no parameter 'nope'/);
  assert.deepEqual(validateParams("status", { token_budget: 10 }), { token_budget: 10 });
});
