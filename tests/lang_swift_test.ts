/** Swift: definitions, relations, ids and syntax errors through the public surface. */
import {
  checkChunkBoundaries,
  checkFixture,
  checkIdStability,
  checkSyntaxRecovery,
} from "./_lang_fixture.ts";

const SOURCE = `import Foundation
// ^ imports: Foundation module=Foundation
@testable import Shop
// ^ imports: Shop module=Shop

/// A cart of items.
@objc public final class Cart: Base, Countable {
// ^ def: Cart class
// ^ inherits: Base from=Cart
// ^ inherits: Countable from=Cart
    let owner: String
    // ^ def: Cart.owner property
    // ^ type_of: String
    private var items: [Item] = []
    // ^ def: Cart.items property
    // ^ type_of: Item

    init(owner: String) {
    // ^ def: Cart.init constructor
        self.owner = owner
        // ^ writes: owner receiver=self from=Cart.init
        // ^ references: owner from=Cart.init
    }

    public func add(_ item: Item, at index: Int = 0) -> Bool {
    // ^ def: Cart.add method
    // ^ type_of: Item from=Cart.add
    // ^ type_of: Bool
        validate(item)
        // ^ calls: validate receiver=- from=Cart.add
        items.append(item)
        // ^ calls: append receiver=items
        self.total = compute(items)
        // ^ writes: total receiver=self
        // ^ calls: compute
        Audit.log(owner.count)
        // ^ calls: log receiver=Audit
        // ^ reads: count receiver=owner
        return true
    }
}

protocol Countable: Sized {
// ^ def: Countable protocol
// ^ inherits: Sized from=Countable
    var count: Int { get }
    // ^ def: Countable.count property
    func countAll() -> Int
    // ^ def: Countable.countAll method
}

struct Point: Equatable {
// ^ def: Point struct
// ^ implements: Equatable from=Point
    var x: Double
    // ^ def: Point.x property
    func length() -> Double { x }
    // ^ def: Point.length method
}

enum Suit: String {
// ^ def: Suit enum
// ^ implements: String
    case hearts, spades
    // ^ def: Suit.hearts constant
    // ^ def: Suit.spades constant
}

extension Cart: Hashable {
// ^ def: Cart extension
// ^ implements: Hashable
    func hash(into hasher: inout Hasher) {}
    // ^ def: Cart.hash method
}

typealias Carts = [Cart]
// ^ def: Carts type

func top(a: Int) -> Int { a }
// ^ def: top function

actor Counter { func inc() {} }
// ^ def: Counter class
// ^ def: Counter.inc method
`;

Deno.test("swift: definitions and relations of a fixture", async () => {
  await checkFixture({ "Sources/Shop/Cart.swift": SOURCE }, {
    exhaustiveKinds: ["class", "struct", "enum", "protocol", "extension", "method", "function"],
    exhaustiveRelations: ["inherits", "implements", "imports"],
  });
});

Deno.test("swift: a file with a syntax error keeps what tree-sitter recovers", async () => {
  const good =
    "class Good {\n    func fine() -> Int {\n        return compute(1, 2)\n    }\n\n    func other() -> Int {\n        return 2\n    }\n}\n";
  await checkSyntaxRecovery({
    path: "Broken.swift",
    source: good + "\nfunc broken(x: Int,\n",
    symbol: "Good.fine",
  });
});

Deno.test("swift: a symbol's id survives an edit above it", async () => {
  const source = "class Cart {\n    func total() -> Int { 1 }\n}\n";
  await checkIdStability({
    path: "Cart.swift",
    before: source,
    after: "func added() {}\n\n" +
      source.replace("class Cart {\n", "class Cart {\n    func more() {}\n"),
    symbol: "Cart.total",
  });
});

Deno.test("swift: a long function splits and keeps its doc comment and attribute", async () => {
  const body = Array.from(
    { length: 120 },
    (_, i) => `    let value${i} = compute(${i}, "padding text")`,
  ).join("\n");
  await checkChunkBoundaries({
    path: "Long.swift",
    source: `/// Does a lot.\n@discardableResult\nfunc run() -> Int {\n${body}\n    return 0\n}\n`,
    symbol: "run",
    firstLine: 1,
    bodyLine: 3,
  });
});
