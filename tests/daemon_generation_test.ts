// Answers are untyped JSON read back from the socket.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { DaemonClient } from "../src/daemon/client.ts";
import { fixtureRepository, startDaemon } from "./_helpers.ts";

Deno.test("daemon (real socket): queries during a refresh see the old generation, then the new one; refreshes are single-flight", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 400; i++) {
    files[`pkg/m${i}.py`] = `def old_function_${i}(x):\n    return x + ${i}\n`.repeat(15);
  }
  const root = fixtureRepository(files);
  const daemon = await startDaemon({ workspace: root });
  const writer = await DaemonClient.connect(daemon.socket);
  const joiner = await DaemonClient.connect(daemon.socket);
  const reader = await DaemonClient.connect(daemon.socket);
  try {
    await writer.request("refresh", {});
    for (let i = 0; i < 400; i++) {
      Deno.writeTextFileSync(
        `${root}/pkg/m${i}.py`,
        `def new_function_${i}(x):\n    return x - ${i}\n`,
      );
    }
    const refreshesBefore = (await reader.request("status") as any).data.daemon.refreshes;
    const countBefore = Object.values(refreshesBefore as Record<string, any>)[0].count;

    let parsing!: () => void;
    const started = new Promise<void>((resolve) => (parsing = resolve));
    let finished = false;
    const refresh = writer.request("refresh", {}, {
      onProgress: (p) => p.phase === "parse" && (p.done as number) > 0 && parsing(),
    }).finally(() => (finished = true));
    await started;
    const joined = joiner.request("refresh", {});

    const seen: number[] = [];
    const check = async () => {
      const old = await reader.request("symbols", { query: "old_function_7", limit: 5 }) as any;
      const fresh = await reader.request("symbols", { query: "new_function_7", limit: 5 }) as any;
      const has = (envelope: any, name: string) =>
        envelope.results.some((hit: any) => hit.name === name);
      // Each answer is one whole generation: the old names or the new ones, never a mix.
      for (
        const [envelope, name, generationOfName] of [[old, "old_function_7", 1], [
          fresh,
          "new_function_7",
          2,
        ]] as const
      ) {
        const generation = envelope.repositories[0].generation;
        assert.ok(generation === 1 || generation === 2, `generation ${generation}`);
        assert.equal(
          has(envelope, name),
          generation === generationOfName,
          `${name} at generation ${generation}`,
        );
      }
      const generation = fresh.repositories[0].generation;
      seen.push(generation);
    };
    while (!finished) await check();
    const [first, second] = await Promise.all([refresh, joined]) as any[];
    await check();
    assert.equal(seen[0], 1, "answered from the last committed generation while the refresh ran");
    assert.equal(seen.at(-1), 2, "the new generation once committed");
    assert.equal(first.data.reports[0].generation, 2);
    assert.equal(second.data.reports[0].generation, 2);
    const refreshesAfter = (await reader.request("status") as any).data.daemon.refreshes;
    const countAfter = Object.values(refreshesAfter as Record<string, any>)[0].count;
    assert.equal(countAfter, countBefore + 1, "the joining client did not start a second refresh");
  } finally {
    writer.close();
    joiner.close();
    reader.close();
    await daemon.stop();
  }
});
