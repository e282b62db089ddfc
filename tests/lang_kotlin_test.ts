/** Kotlin: definitions, relations, ids and syntax errors through the public surface. */
import {
  checkChunkBoundaries,
  checkFixture,
  checkIdStability,
  checkSyntaxRecovery,
} from "./_lang_fixture.ts";

const SOURCE = `package com.example.shop

import kotlin.math.max
// ^ imports: max module=kotlin.math alias=-
import com.example.util.Helper as H
// ^ imports: Helper module=com.example.util alias=H
import com.example.other.*
// ^ imports: * module=com.example.other

/** A cart of items. */
data class Cart(val owner: String, private var limit: Int = 3) : Base(), Countable, Comparable<Cart> {
// ^ def: com.example.shop.Cart class
// ^ def: com.example.shop.Cart.owner property
// ^ inherits: Base from=com.example.shop.Cart
// ^ implements: Countable from=com.example.shop.Cart
// ^ implements: Comparable from=com.example.shop.Cart
// ^ type_of: String
    val items: MutableList<Item> = mutableListOf()
    // ^ def: com.example.shop.Cart.items property
    // ^ type_of: Item
    var total: Int = 0
    // ^ def: com.example.shop.Cart.total property

    constructor(owner: String) : this(owner, 5)
    // ^ def: com.example.shop.Cart.constructor constructor

    fun add(item: Item): Boolean {
    // ^ def: com.example.shop.Cart.add method
    // ^ type_of: Item from=com.example.shop.Cart.add
    // ^ type_of: Boolean
        validate(item)
        // ^ calls: validate receiver=- from=com.example.shop.Cart.add
        // ^ references: item
        items.add(item)
        // ^ calls: add receiver=items
        this.total = compute(items)
        // ^ writes: total receiver=this from=com.example.shop.Cart.add
        // ^ calls: compute
        H.log(owner.length)
        // ^ calls: log receiver=H
        // ^ reads: length receiver=owner
        total += max(1, 2)
        // ^ writes: total receiver=-
        // ^ calls: max
        return true
    }

    private fun validate(item: Item) {}
    // ^ def: com.example.shop.Cart.validate method

    companion object {
        fun create(): Cart = Cart("a")
        // ^ def: com.example.shop.Cart.create method
        // ^ calls: Cart from=com.example.shop.Cart.create
    }

    inner class Line
    // ^ def: com.example.shop.Cart.Line class
}

interface Countable : Sized {
// ^ def: com.example.shop.Countable interface
// ^ inherits: Sized
    fun count(): Int
    // ^ def: com.example.shop.Countable.count method
}

object Registry : Listener {
// ^ def: com.example.shop.Registry object
// ^ implements: Listener
    var count = 0
    // ^ def: com.example.shop.Registry.count property
}

enum class Suit { HEARTS, SPADES }
// ^ def: com.example.shop.Suit class
// ^ def: com.example.shop.Suit.HEARTS constant

typealias Carts = List<Cart>
// ^ def: com.example.shop.Carts type

fun String.shout(): String = uppercase()
// ^ def: com.example.shop.shout function

fun top(a: Int) = a
// ^ def: com.example.shop.top function

const val LIMIT = 10
// ^ def: com.example.shop.LIMIT constant
`;

Deno.test("kotlin: definitions and relations of a fixture", async () => {
  await checkFixture({ "src/main/kotlin/com/example/shop/Cart.kt": SOURCE }, {
    exhaustiveKinds: ["class", "interface", "object", "method", "function"],
    exhaustiveRelations: ["inherits", "implements", "imports"],
  });
});

Deno.test("kotlin: a script without a package names from the top", async () => {
  await checkFixture({
    "build.gradle.kts":
      'plugins { id("x") }\n// ^ calls: id\nfun helper() = 1\n// ^ def: helper function\n',
  });
});

Deno.test("kotlin: a file with a syntax error keeps what tree-sitter recovers", async () => {
  const good =
    "package p\n\nclass Good {\n    fun fine(): Int {\n        return compute(1, 2)\n    }\n\n    fun other(): Int {\n        return 2\n    }\n}\n";
  await checkSyntaxRecovery({
    path: "Broken.kt",
    source: good + "\nfun broken(x: Int,\n",
    symbol: "p.Good.fine",
  });
});

Deno.test("kotlin: a symbol's id survives an edit above it", async () => {
  const source = "package p\n\nclass Cart {\n    fun total() = 1\n}\n";
  await checkIdStability({
    path: "Cart.kt",
    before: source,
    after: source.replace("package p\n", "package p\n\nfun added() = 0\n")
      .replace("class Cart {\n", "class Cart {\n    fun more() = 2\n"),
    symbol: "p.Cart.total",
  });
});

Deno.test("kotlin: a long function splits and keeps its KDoc and annotation", async () => {
  const body = Array.from(
    { length: 120 },
    (_, i) => `    val value${i} = compute(${i}, "padding text")`,
  ).join("\n");
  await checkChunkBoundaries({
    path: "Long.kt",
    source: `package p\n\n/** Does a lot. */\n@Suppress("unused")\nfun run() {\n${body}\n}\n`,
    symbol: "p.run",
    firstLine: 3,
    bodyLine: 5,
  });
});
