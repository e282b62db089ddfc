/** Scala: definitions, relations, ids and syntax errors through the public surface. */
import {
  checkChunkBoundaries,
  checkFixture,
  checkIdStability,
  checkSyntaxRecovery,
} from "./_lang_fixture.ts";

const SOURCE = `package com.example.shop

import scala.collection.mutable
// ^ imports: mutable module=scala.collection alias=-
import scala.util.{Try, Success => Ok}
// ^ imports: Try module=scala.util
// ^ imports: Success module=scala.util alias=Ok
import java.io._
// ^ imports: * module=java.io

/** A cart of items. */
case class Cart(owner: String, limit: Int = 3) extends Base with Countable with Serializable {
// ^ def: com.example.shop.Cart class
// ^ inherits: Base from=com.example.shop.Cart
// ^ implements: Countable from=com.example.shop.Cart
// ^ implements: Serializable from=com.example.shop.Cart
// ^ type_of: String
  val items: List[Item] = Nil
  // ^ def: com.example.shop.Cart.items property
  // ^ type_of: List
  // ^ type_of: Item
  var total: Int = 0
  // ^ def: com.example.shop.Cart.total property

  private def validate(item: Item): Unit = {}
  // ^ def: com.example.shop.Cart.validate method

  def add(item: Item): Boolean = {
  // ^ def: com.example.shop.Cart.add method
  // ^ type_of: Item from=com.example.shop.Cart.add
  // ^ type_of: Boolean
    validate(item)
    // ^ calls: validate receiver=- from=com.example.shop.Cart.add
    // ^ references: item
    items.append(item)
    // ^ calls: append receiver=items
    this.total = compute(items)
    // ^ writes: total receiver=this from=com.example.shop.Cart.add
    // ^ calls: compute
    Audit.log(owner.length)
    // ^ calls: log receiver=Audit
    // ^ reads: length receiver=owner
    total += 1
    // ^ writes: total receiver=-
    true
  }

  def this(o: String) = this(o, 1)
  // ^ def: com.example.shop.Cart.this constructor
}

trait Countable extends Sized {
// ^ def: com.example.shop.Countable trait
// ^ inherits: Sized from=com.example.shop.Countable
  def count: Int
  // ^ def: com.example.shop.Countable.count method
}

object Registry extends App {
// ^ def: com.example.shop.Registry object
// ^ inherits: App
  def apply(x: Int): Cart = new Cart("a")
  // ^ def: com.example.shop.Registry.apply method
  // ^ calls: Cart from=com.example.shop.Registry.apply
}

sealed abstract class Shape
// ^ def: com.example.shop.Shape class

type Carts = List[Cart]
// ^ def: com.example.shop.Carts type

package object util {
// ^ def: com.example.shop.util object
  def helper(x: Int) = x
  // ^ def: com.example.shop.util.helper method
}
`;

Deno.test("scala: definitions and relations of a fixture", async () => {
  await checkFixture({ "src/main/scala/com/example/shop/Cart.scala": SOURCE }, {
    exhaustiveKinds: ["class", "trait", "object", "method", "function"],
    exhaustiveRelations: ["inherits", "implements", "imports"],
  });
});

Deno.test("scala: chained package clauses make one package", async () => {
  await checkFixture({
    "Chained.scala":
      "package com.example\npackage shop\n\nclass Chained\n// ^ def: com.example.shop.Chained class\n",
  });
});

Deno.test("scala: a file with a syntax error keeps what tree-sitter recovers", async () => {
  const good =
    "package p\n\nclass Good {\n  def fine(): Int = {\n    compute(1, 2)\n  }\n\n  def other(): Int = {\n    2\n  }\n}\n";
  await checkSyntaxRecovery({
    path: "Broken.scala",
    source: good + "\ndef broken(x: Int,\n",
    symbol: "p.Good.fine",
  });
});

Deno.test("scala: a symbol's id survives an edit above it", async () => {
  const source = "package p\n\nclass Cart {\n  def total(): Int = 1\n}\n";
  await checkIdStability({
    path: "Cart.scala",
    before: source,
    after: source.replace("package p\n", "package p\n\nobject Added\n")
      .replace("class Cart {\n", "class Cart {\n  def more(): Int = 2\n"),
    symbol: "p.Cart.total",
  });
});

Deno.test("scala: a long method splits and keeps its Scaladoc and annotation", async () => {
  const body = Array.from(
    { length: 120 },
    (_, i) => `    val value${i} = compute(${i}, "padding text")`,
  ).join("\n");
  await checkChunkBoundaries({
    path: "Long.scala",
    source:
      `package p\n\nobject Long {\n  /** Does a lot. */\n  @inline\n  def run(): Unit = {\n${body}\n  }\n}\n`,
    symbol: "p.Long.run",
    firstLine: 4,
    bodyLine: 6,
  });
});
