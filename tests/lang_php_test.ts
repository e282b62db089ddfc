/** PHP: definitions, relations, ids and syntax errors through the public surface. */
import {
  checkChunkBoundaries,
  checkFixture,
  checkIdStability,
  checkSyntaxRecovery,
} from "./_lang_fixture.ts";

const SOURCE = `<?php
declare(strict_types=1);

namespace App\\Http;

use Psr\\Log\\LoggerInterface;
// ^ imports: LoggerInterface module=Psr\\Log alias=-
use App\\Models\\{User, Post as Article};
// ^ imports: User module=App\\Models
// ^ imports: Post module=App\\Models alias=Article
use Vendor\\Lib as Lib;
// ^ imports: Lib module=Vendor alias=Lib
require_once __DIR__ . '/bootstrap.php';
// ^ imports: /bootstrap.php module=/bootstrap.php

/** Handles requests. */
final class Kernel extends BaseKernel implements HandlerInterface, \\Countable
// ^ def: App\\Http\\Kernel class
// ^ inherits: BaseKernel from=App\\Http\\Kernel
// ^ implements: HandlerInterface from=App\\Http\\Kernel
// ^ implements: \\Countable from=App\\Http\\Kernel
{
    use Loggable;
    // ^ implements: Loggable from=App\\Http\\Kernel
    public const VERSION = '1.0';
    // ^ def: App\\Http\\Kernel::VERSION constant
    private static int $count = 0;
    // ^ def: App\\Http\\Kernel::count property
    protected ?LoggerInterface $logger;
    // ^ def: App\\Http\\Kernel::logger property
    // ^ type_of: LoggerInterface

    public function __construct(Router $router, LoggerInterface $logger)
    // ^ def: App\\Http\\Kernel::__construct method
    // ^ type_of: Router from=App\\Http\\Kernel::__construct
    {
        $this->logger = $logger;
        // ^ writes: logger receiver=$this from=App\\Http\\Kernel::__construct
        // ^ references: $logger
        self::$count++;
        // ^ writes: $count receiver=self
    }

    public function handle(Request $request): Response
    // ^ def: App\\Http\\Kernel::handle method
    // ^ type_of: Request
    // ^ type_of: Response
    {
        $response = $this->router->dispatch($request);
        // ^ calls: dispatch receiver=$this->router from=App\\Http\\Kernel::handle
        // ^ reads: router receiver=$this
        $this->logger?->info('handled');
        // ^ calls: info receiver=$this->logger
        static::boot();
        // ^ calls: boot receiver=static
        Helper::format($request);
        // ^ calls: format receiver=Helper
        // ^ references: Helper
        format($response);
        // ^ calls: format receiver=-
        return new Response(200);
        // ^ calls: Response
    }
}

interface HandlerInterface extends Base
// ^ def: App\\Http\\HandlerInterface interface
// ^ inherits: Base
{
    public function handle(Request $r): Response;
    // ^ def: App\\Http\\HandlerInterface::handle method
}

trait Loggable
// ^ def: App\\Http\\Loggable trait
{
    public function log(string $message): void {}
    // ^ def: App\\Http\\Loggable::log method
}

enum Suit: string
// ^ def: App\\Http\\Suit enum
{
    case Hearts = 'H';
    // ^ def: App\\Http\\Suit::Hearts constant
}

function helper(int $a): int { return $a; }
// ^ def: App\\Http\\helper function

$config = load_config();
// ^ writes: $config
`;

Deno.test("php: definitions and relations of a fixture", async () => {
  await checkFixture({ "src/Http/Kernel.php": SOURCE }, {
    exhaustiveKinds: ["class", "interface", "trait", "enum", "method", "function"],
    exhaustiveRelations: ["inherits", "implements", "imports"],
  });
});

Deno.test("php: a file without a namespace names from the top", async () => {
  await checkFixture({
    "index.php":
      "<?php\nfunction main() {}\n// ^ def: main function\nclass App {}\n// ^ def: App class\n",
  });
});

Deno.test("php: a file with a syntax error keeps what tree-sitter recovers", async () => {
  const good =
    "<?php\nclass Good\n{\n    public function fine(): int\n    {\n        return compute(1, 2);\n    }\n\n    public function other(): int\n    {\n        return 2;\n    }\n}\n";
  await checkSyntaxRecovery({
    path: "broken.php",
    source: good + "\nfunction broken($x, {\n",
    symbol: "Good::fine",
  });
});

Deno.test("php: a symbol's id survives an edit above it", async () => {
  const source = "<?php\nclass Cart\n{\n    public function total() {}\n}\n";
  await checkIdStability({
    path: "Cart.php",
    before: source,
    after: source.replace("<?php\n", "<?php\nfunction added() {}\n\n")
      .replace("{\n", "{\n    public function more() {}\n"),
    symbol: "Cart::total",
  });
});

Deno.test("php: a long method splits and keeps its doc comment and attribute", async () => {
  const body = Array.from(
    { length: 120 },
    (_, i) => `        $value${i} = compute(${i}, "padding text");`,
  ).join("\n");
  await checkChunkBoundaries({
    path: "Long.php",
    source:
      `<?php\nclass Long\n{\n    /** Does a lot. */\n    #[Pure]\n    public function run(): void\n    {\n${body}\n    }\n}\n`,
    symbol: "Long::run",
    firstLine: 4,
    bodyLine: 6,
  });
});
