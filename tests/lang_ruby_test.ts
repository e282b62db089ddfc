/** Ruby: definitions, relations, ids and syntax errors through the public surface. */
import {
  checkChunkBoundaries,
  checkFixture,
  checkIdStability,
  checkSyntaxRecovery,
} from "./_lang_fixture.ts";

const SOURCE = `require "json"
# ^ imports: json module=json
require_relative "../support/helpers"
# ^ imports: ../support/helpers module=../support/helpers
autoload :Parser, "shop/parser"
# ^ imports: :Parser module=shop/parser

module Shop
# ^ def: Shop module
  VERSION = "1.0"
  # ^ def: Shop::VERSION constant

  # A cart of items.
  class Cart < Base::Model
  # ^ def: Shop::Cart class
  # ^ inherits: Base::Model from=Shop::Cart
    include Enumerable
    # ^ implements: Enumerable from=Shop::Cart
    extend Forwardable
    # ^ implements: Forwardable from=Shop::Cart

    def initialize(owner, limit = DEFAULT_LIMIT)
    # ^ def: Shop::Cart.initialize method
      @owner = owner
      # ^ writes: @owner from=Shop::Cart.initialize
      # ^ references: owner from=Shop::Cart.initialize
      @@carts += 1
      # ^ writes: @@carts
      $registry = self
      # ^ writes: $registry
    end

    def add(item)
    # ^ def: Shop::Cart.add method
      validate(item)
      # ^ calls: validate receiver=- from=Shop::Cart.add
      @items.push(item)
      # ^ calls: push receiver=@items from=Shop::Cart.add
      # ^ reads: @items
      Reports::Audit.log(@owner, item)
      # ^ calls: log receiver=Reports::Audit
      # ^ reads: @owner
      self.total = compute(@items)
      # ^ writes: total receiver=self
      # ^ calls: compute
    end

    def self.build(*args)
    # ^ def: Shop::Cart.build method
      new(*args)
      # ^ calls: new from=Shop::Cart.build
    end

    class << self
      def registry
      # ^ def: Shop::Cart.registry method
        $registry
        # ^ reads: $registry
      end
    end

    private def validate(item)
    # ^ def: Shop::Cart.validate method
      raise ArgumentError unless item
      # ^ references: ArgumentError
    end
  end

  class Reports::Audit
  # ^ def: Shop::Reports::Audit class
  end
end

def helper
# ^ def: helper function
end
`;

Deno.test("ruby: definitions and relations of a fixture", async () => {
  await checkFixture({ "lib/shop/cart.rb": SOURCE }, {
    exhaustiveKinds: ["class", "module", "method", "function"],
    exhaustiveRelations: ["inherits", "implements", "imports"],
  });
});

Deno.test("ruby: Rakefile and Gemfile are Ruby", async () => {
  await checkFixture({
    "Rakefile":
      'task :build do\n  sh "make"\nend\n\ndef clean_all\n# ^ def: clean_all function\nend\n',
    "Gemfile": 'source "https://rubygems.org"\ngem "rack"\n# ^ calls: gem\n',
  });
});

Deno.test("ruby: a file with a syntax error keeps what tree-sitter recovers", async () => {
  const good =
    "class Good\n  def fine\n    compute(1, 2)\n  end\n\n  def other\n    2\n  end\nend\n";
  await checkSyntaxRecovery({
    path: "broken.rb",
    source: good + "\ndef broken(x,\n  [1, 2\n",
    symbol: "Good.fine",
  });
});

Deno.test("ruby: a symbol's id survives an edit above it", async () => {
  const source = "class Cart\n  def total\n  end\nend\n";
  await checkIdStability({
    path: "cart.rb",
    before: source,
    after: "def added\nend\n\n" +
      source.replace("class Cart\n", "class Cart\n  def more; end\n"),
    symbol: "Cart.total",
  });
});

Deno.test("ruby: a long method splits and keeps its comment", async () => {
  const body = Array.from(
    { length: 120 },
    (_, i) => `    value${i} = compute(${i}, "padding text")`,
  ).join("\n");
  await checkChunkBoundaries({
    path: "lib/long.rb",
    source: `class Long\n  # Does a lot.\n  def run\n${body}\n  end\nend\n`,
    symbol: "Long.run",
    firstLine: 2,
    bodyLine: 3,
  });
});
