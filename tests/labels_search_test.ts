/**
 * Search labels and lists that say no more than they know (real process,
 * through the CLI): an identifier that occurs nowhere is at best a `candidate`,
 * and hits an order of magnitude below the best are cut, not padded on.
 */
import nodeAssert from "node:assert/strict";
import type { Envelope } from "../src/protocol/types.ts";
import { fixtureRepository, runCli, tempCache } from "./_helpers.ts";

const assert = (condition: unknown, message?: string) => nodeAssert.ok(condition, message);
const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  nodeAssert.deepStrictEqual(actual, expected, message);

async function search(root: string, args: string[]): Promise<Envelope> {
  const out = await runCli([
    "query",
    "--embedded",
    "--json",
    "--workspace",
    root,
    "--cache-dir",
    tempCache(),
    "search",
    ...args,
  ]);
  try {
    return JSON.parse(out.stdout) as Envelope;
  } catch {
    throw new Error(`not JSON (exit ${out.code}): ${out.stdout}\n${out.stderr}`);
  }
}

Deno.test("a renamed identifier that occurs nowhere is at best a candidate (real process)", async () => {
  const root = fixtureRepository({
    "src/retry.ts": `export async function retryWithJitter<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** attempt));
    }
  }
}
`,
  });
  const renamed = await search(root, ["retryWithBackoff"]);
  assertEquals(renamed.results[0]?.path, "src/retry.ts");
  assert(
    renamed.provenance.confidence === "candidate" || renamed.provenance.confidence === "weak",
    `labelled ${renamed.provenance.confidence}`,
  );
  assert(renamed.limitations.some((l) => l.includes("'retryWithBackoff' occur(s) nowhere")));
  // The name as it is now is found and labelled as before.
  const current = await search(root, ["retryWithJitter"]);
  assertEquals(current.results[0]?.path, "src/retry.ts");
  assertEquals(current.provenance.confidence, "reliable");
});

Deno.test("hits an order of magnitude below the best are cut (real process)", async () => {
  const files: Record<string, string> = {
    "src/retry.py": `import time


def retry_backoff(call, attempts=5, backoff=0.5):
    """Retry a call with exponential backoff between attempts."""
    delay = backoff
    for attempt in range(attempts):
        try:
            return call()
        except IOError:
            time.sleep(delay)
            delay *= 2  # backoff grows before the next retry
    raise RuntimeError("retry budget spent after backoff")
`,
  };
  // Forty files that only look alike to the vectors: a long, ever weaker tail.
  for (let i = 0; i < 40; i++) {
    files[`src/near${i}.py`] = `def near${i}(retries_left, backing):
    """Counts retries and back offs: retrying later."""
    return retries_left - backing
`;
  }
  const root = fixtureRepository(files);
  const answer = await search(root, ["retry backoff", "--limit", "100"]);
  assertEquals(answer.results[0]?.path, "src/retry.py");
  const top = answer.results[0].score;
  const tail = answer.results.filter((hit) => hit.score < top / 10);
  assertEquals(tail.map((hit) => `${hit.path} ${hit.score}`), [], `top ${top}`);
});
