/**
 * What the newer grammars (and the parse repair of TypeScript type members) let the index see,
 * through marker fixtures checked by the public `symbols` action and the relation table:
 * TypeScript interfaces whose call signatures start lines without `;` (hono's `Context`
 * interfaces, which the previous grammar turned into one ERROR), Scala `sealed trait` and
 * Scala 3 definitions, Kotlin one-line bodies, and C# members of a file-scoped namespace.
 */
import assert from "node:assert/strict";
import { checkFixture } from "./_lang_fixture.ts";
import { fixtureRepository, withWorkspace } from "./_helpers.ts";

const HONO_CONTEXT = `interface Get<E extends Env> {
// ^ def: src/context.Get interface
  <Key extends keyof E['Variables']>(key: Key): E['Variables'][Key]
  <Key extends keyof ContextVariableMap>(key: Key): ContextVariableMap[Key]
}

interface NewResponse {
// ^ def: src/context.NewResponse interface
  (data: Data | null, status?: StatusCode, headers?: HeaderRecord): Response
  (data: Data | null, init?: ResponseOrInit): Response
}

export class Context<E extends Env = any> {
// ^ def: src/context.Context class
  get: Get<E> = (key) => this.#var.get(key)
  // ^ def: src/context.Context.get field

  newResponse: NewResponse = (...args) => this.#newResponse(...args)
  // ^ def: src/context.Context.newResponse field

  json(object: unknown): Response {
  // ^ def: src/context.Context.json method
    return this.newResponse(JSON.stringify(object))
    // ^ calls: newResponse receiver=this from=src/context.Context.json
  }
}
`;

Deno.test("typescript: call signatures on their own lines in an interface leave the rest of the file parsed", async () => {
  await checkFixture({ "src/context.ts": HONO_CONTEXT });
});

Deno.test("typescript: the repaired parse records no syntax error for the file", async () => {
  const root = fixtureRepository({ "src/context.ts": HONO_CONTEXT });
  await withWorkspace(root, async (_workspace, run) => {
    await run("refresh");
    const status = await run("status");
    const [repository] = (status.data as { repositories: { errors: { count: number } }[] })
      .repositories;
    assert.equal(repository.errors.count, 0);
  });
});

Deno.test("scala: sealed traits and Scala 3 enums, givens and extensions", async () => {
  await checkFixture({
    "src/main/scala/app/Shapes.scala": `package app

sealed trait Shape
// ^ def: app.Shape trait

final case class Circle(r: Double) extends Shape
// ^ def: app.Circle class
// ^ inherits: Shape from=app.Circle

enum Color:
// ^ def: app.Color enum
  case Red, Green
  // ^ def: app.Color.Red constant

given intOrdering: Ordering[Int] = Ordering.Int
// ^ def: app.intOrdering object

extension (c: Circle)
  def area: Double = 3.14 * c.r * c.r
  // ^ def: app.area function
`,
  });
});

Deno.test("kotlin: one-line bodies, companion objects and imports", async () => {
  await checkFixture({
    "src/app/Config.kt": `package app

import kotlin.math.max as maximum
// ^ imports: max module=kotlin.math alias=maximum

object Defaults { const val LIMIT = 3 }
// ^ def: app.Defaults object

class Config(val limit: Int) : Base(), Named {
// ^ def: app.Config class
// ^ inherits: Base from=app.Config
// ^ implements: Named from=app.Config
    fun bounded(x: Int): Int = maximum(x, limit)
    // ^ def: app.Config.bounded method
    // ^ calls: maximum from=app.Config.bounded
}
`,
  });
});
