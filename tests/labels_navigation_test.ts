/**
 * Navigation answers keep their labels' promises (real process, through the
 * CLI): `repo` never narrows the resolver's scope, the answering sibling is in
 * `repositories`, an empty answer is never `exact` about what it did not
 * search, and a symbol given with a path or a position finds what that path or
 * position resolves.
 */
import nodeAssert from "node:assert/strict";
import { join } from "node:path";
import type { Envelope, ResultHit } from "../src/protocol/types.ts";
import { git, runCli, tempCache, tempDirectory, writeFiles } from "./_helpers.ts";
import { writeWorkspaceFixture } from "./_workspace_fixture.ts";

const assert = (condition: unknown, message?: string) => nodeAssert.ok(condition, message);
const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  nodeAssert.deepStrictEqual(actual, expected, message);

/** `ledger` (the TS package `@acme/ledger`), `billing` (Python) and `shop`, which uses both. */
const LEDGER_SHOP_BILLING: Record<string, Record<string, string>> = {
  ledger: {
    "package.json": JSON.stringify({ name: "@acme/ledger", main: "src/index.ts" }),
    "src/index.ts": `export function computeTax(amount: number): number {
  return amount * 0.2;
}
`,
  },
  shop: {
    "package.json": JSON.stringify({ name: "shop", dependencies: { "@acme/ledger": "*" } }),
    "src/checkout.ts": `import { computeTax } from "@acme/ledger";

export function checkout(total: number): number {
  return total + computeTax(total);
}
`,
    "shop/__init__.py": "",
    "shop/cart.py": `from billing.rates import vat_rate


def cart_total(n):
    return n * vat_rate()
`,
  },
  billing: {
    "billing/__init__.py": "",
    "billing/rates.py": `def vat_rate():
    return 0.2
`,
  },
};

function writeThreeRepositories(): string {
  const root = Deno.realPathSync(tempDirectory({ prefix: "sextant-labels-" }));
  for (const [name, files] of Object.entries(LEDGER_SHOP_BILLING)) {
    const dir = join(root, name);
    writeFiles(dir, files);
    git(dir, "init", "-q");
    git(dir, "add", "-A");
    git(dir, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "fixture");
  }
  Deno.writeTextFileSync(
    join(root, "sextant.yml"),
    `repositories:
  - { name: ledger, path: ledger }
  - { name: shop, path: shop }
  - { name: billing, path: billing }
project_siblings:
  - [ledger, shop, billing]
`,
  );
  return root;
}

/** Runs `sextant query --embedded --json …` on a workspace and cache; returns the envelope. */
async function query(root: string, cache: string, args: string[]): Promise<Envelope> {
  const out = await runCli([
    "query",
    "--embedded",
    "--json",
    "--workspace",
    root,
    "--cache-dir",
    cache,
    ...args,
  ]);
  try {
    return JSON.parse(out.stdout) as Envelope;
  } catch {
    throw new Error(`not JSON (exit ${out.code}): ${out.stdout}\n${out.stderr}`);
  }
}

const where = (hits: ResultHit[]) => hits.map((h) => `${h.repo}:${h.path}:${h.start_line}`);
const names = (envelope: Envelope) => envelope.repositories.map((r) => r.name).sort();

Deno.test("repo never narrows the resolver scope: a sibling answers on a fresh cache (real process)", async (t) => {
  const root = writeThreeRepositories();

  await t.step("definition by name, TypeScript", async () => {
    const answer = await query(root, tempCache(), ["definition", "computeTax", "--repo", "shop"]);
    assertEquals(where(answer.results), ["ledger:src/index.ts:1"], answer.limitations.join("; "));
    assert(names(answer).includes("ledger"), `repositories: ${names(answer)}`);
  });

  await t.step("the use-site form resolves through the workspace package, exactly", async () => {
    const answer = await query(root, tempCache(), [
      "definition",
      "--path",
      "src/checkout.ts",
      "--line",
      "4",
      "--column",
      "18",
      "--repo",
      "shop",
    ]);
    assertEquals(where(answer.results), ["ledger:src/index.ts:1"], answer.limitations.join("; "));
    assertEquals(answer.results[0].evidence, "import");
    assertEquals(answer.provenance.confidence, "exact");
    // The answering repository is named with its generation.
    const ledger = answer.repositories.find((r) => r.name === "ledger");
    assert(ledger && ledger.generation > 0, `repositories: ${JSON.stringify(answer.repositories)}`);
  });

  await t.step("Python: from billing.rates import vat_rate", async () => {
    const byName = await query(root, tempCache(), ["definition", "vat_rate", "--repo", "shop"]);
    assertEquals(where(byName.results), ["billing:billing/rates.py:1"]);
    assert(names(byName).includes("billing"));
    const atUse = await query(root, tempCache(), [
      "definition",
      "--path",
      "shop/cart.py",
      "--line",
      "5",
      "--column",
      "16",
      "--repo",
      "shop",
    ]);
    assertEquals(where(atUse.results), ["billing:billing/rates.py:1"], atUse.limitations.join());
    assertEquals(atUse.provenance.confidence, "exact");
    assert(names(atUse).includes("billing"), `repositories: ${names(atUse)}`);
  });

  await t.step("without refresh, an empty answer says what it did not search", async () => {
    const answer = await query(root, tempCache(), [
      "definition",
      "computeTax",
      "--repo",
      "shop",
      "--no-refresh",
    ]);
    assertEquals(answer.results, []);
    assertEquals(answer.provenance.confidence, "approximate");
    assertEquals(answer.provenance.fresh, false);
    const said = answer.limitations.join("; ");
    assert(/not searched: .*ledger \(target missing\)/.test(said), said);
  });
});

Deno.test("a symbol with a path or a position finds what the path or position resolves (real process)", async (t) => {
  const { root } = writeWorkspaceFixture();
  const cache = tempCache();
  const at = ["--path", "service/app.py", "--repo", "pysvc"];

  await t.step("the position alone and the symbol with it agree", async () => {
    const alone = await query(root, cache, ["definition", ...at, "--line", "10", "--column", "7"]);
    assertEquals(where(alone.results), ["pylib:acme_lib/core.py:10"]);
    for (const symbol of ["get", "Store.get"]) {
      const both = await query(root, cache, [
        "definition",
        symbol,
        ...at,
        "--line",
        "10",
        "--column",
        "7",
      ]);
      assertEquals(where(both.results), where(alone.results), both.limitations.join("; "));
      assertEquals(both.results[0].evidence, alone.results[0].evidence);
    }
  });

  await t.step("a symbol only used in the file: what its uses there resolve to", async () => {
    const answer = await query(root, cache, ["definition", "get", ...at]);
    assertEquals(where(answer.results), ["pylib:acme_lib/core.py:10"], answer.limitations.join());
    assert(!answer.limitations.some((l) => l.includes("no definition named")));
  });

  await t.step("a symbol defined in the file: that definition", async () => {
    const answer = await query(root, cache, [
      "definition",
      "get",
      "--path",
      "service/cache.py",
      "--repo",
      "pysvc",
    ]);
    assertEquals(where(answer.results), ["pysvc:service/cache.py:2"]);
    assertEquals(answer.results[0].evidence, "same_file");
  });
});

Deno.test("a request path through a symlink that leaves the repository is PathRejected (real process)", async () => {
  const outside = Deno.realPathSync(tempDirectory({ prefix: "sextant-outside-" }));
  writeFiles(outside, { "secret.ts": "export function secret(): number {\n  return 1;\n}\n" });
  const root = Deno.realPathSync(tempDirectory({ prefix: "sextant-links-" }));
  writeFiles(root, { "src/a.ts": "export function a(): number {\n  return 2;\n}\n" });
  Deno.symlinkSync(outside, join(root, "away"));
  Deno.symlinkSync(join(outside, "secret.ts"), join(root, "src/secret.ts"));
  Deno.symlinkSync(join(root, "src"), join(root, "inside"));
  const cache = tempCache();
  for (const path of ["away/secret.ts", "src/secret.ts", "away"]) {
    const out = await runCli([
      "query",
      "--embedded",
      "--json",
      "--workspace",
      root,
      "--cache-dir",
      cache,
      "definition",
      "--path",
      path,
    ]);
    const answer = JSON.parse(out.stdout) as { error?: { code: number; message: string } };
    assertEquals(answer.error?.code, -32005, `${path}: ${out.stdout}`);
    assertEquals(out.code, 2);
  }
  // A link that stays inside the repository is an ordinary path.
  const inside = await query(root, cache, ["definition", "--path", "inside/a.ts"]);
  assertEquals((inside as { error?: unknown }).error, undefined);
});
