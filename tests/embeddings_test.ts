import assert from "node:assert/strict";
import {
  embeddingConfig,
  EmbeddingError,
  embedMissingChunks,
  embedTexts,
  providerModelId,
} from "../src/indexer/embeddings.ts";
import { openTargetWriter } from "../src/store/target.ts";
import { fixtureRepository, withWorkspace, writeFiles } from "./_helpers.ts";

type Mode = "ok" | "slow" | "malformed" | "http500";

/** A local OpenAI-compatible `/v1/embeddings` server whose behaviour the test picks. */
function startServer(): {
  url: string;
  setMode(mode: Mode): void;
  requests: string[][];
  close(): Promise<void>;
} {
  let mode: Mode = "ok";
  const requests: string[][] = [];
  const controller = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen() {} },
    async (request) => {
      const body = await request.json() as { input: string[]; model: string };
      requests.push(body.input);
      if (mode === "slow") await new Promise((resolve) => setTimeout(resolve, 1500));
      if (mode === "http500") return new Response("boom", { status: 500 });
      if (mode === "malformed") return Response.json({ data: [{ embedding: "nope" }] });
      // A toy embedding: letter frequencies, so texts about the same words are close.
      const data = body.input.map((text, index) => {
        const vector = new Array(26).fill(0);
        for (const ch of text.toLowerCase()) {
          const code = ch.charCodeAt(0) - 97;
          if (code >= 0 && code < 26) vector[code]++;
        }
        vector[0] += 0.001;
        return { object: "embedding", index, embedding: vector };
      });
      return Response.json({ object: "list", data, model: body.model });
    },
  );
  const address = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${address.port}`,
    setMode: (next) => (mode = next),
    requests,
    close: async () => {
      controller.abort();
      await server.finished;
    },
  };
}

Deno.test("embeddings: config section is parsed, and bad keys are named", () => {
  assert.equal(embeddingConfig({}), null);
  const config = embeddingConfig({
    embeddings: {
      endpoint: "http://localhost:11434",
      model: "nomic",
      batch_size: 8,
      timeout_ms: 500,
    },
  })!;
  assert.equal(config.endpoint, "http://localhost:11434/v1/embeddings");
  assert.equal(config.batchSize, 8);
  assert.equal(config.timeoutMs, 500);
  assert.equal(config.dimensions, null);
  assert.equal(providerModelId(config), "provider:nomic:native");
  assert.throws(
    () => embeddingConfig({ embeddings: { endpoint: "http://x", model: "m", batch_size: 0 } }),
    /embeddings\.batch_size/,
  );
  assert.throws(() => embeddingConfig({ embeddings: { model: "m" } }), /embeddings\.endpoint/);
  assert.throws(() => embeddingConfig({ embeddings: { endpoint: "ftp://x", model: "m" } }), /http/);
});

Deno.test("embeddings: success, timeout and malformed replies against a local server", async () => {
  const server = startServer();
  try {
    const config = embeddingConfig({
      embeddings: { endpoint: server.url, model: "toy", timeout_ms: 300, batch_size: 2 },
    })!;
    const vectors = await embedTexts(config, ["alpha", "beta"]);
    assert.equal(vectors.length, 2);
    assert.equal(vectors[0].length, 26);
    server.setMode("slow");
    await assert.rejects(embedTexts(config, ["alpha"]), EmbeddingError, "timed out");
    server.setMode("malformed");
    await assert.rejects(embedTexts(config, ["alpha"]), /malformed/);
    server.setMode("http500");
    await assert.rejects(embedTexts(config, ["alpha"]), /HTTP 500/);
  } finally {
    await server.close();
  }
});

Deno.test("embeddings: a refresh embeds through the provider, reuses vectors per content hash, and search falls back", async () => {
  const server = startServer();
  const root = fixtureRepository({
    "src/retry.ts": "export function retryWithBackoff() {\n  return 'retry retry backoff';\n}\n",
    "src/cookies.ts": "export function mergeCookies() {\n  return 'cookie jar merge';\n}\n",
  });
  writeFiles(root, {
    "sextant.yml": [
      "embeddings:",
      `  endpoint: ${server.url}/v1`,
      "  model: toy",
      "  timeout_ms: 300",
      "  batch_size: 1",
      "",
    ].join("\n"),
  });
  try {
    await withWorkspace(root, async (workspace, run) => {
      const repo = workspace.repositories[0];
      // The refresh embeds every chunk through the configured provider.
      const report = await workspace.refresh(repo);
      assert.equal(report.embeddings?.error, null);
      assert.ok((report.embeddings?.computed ?? 0) > 0);
      const config = embeddingConfig(workspace.config.raw)!;
      const { writer } = openTargetWriter(repo.location);
      try {
        // Every chunk content hash now has a provider vector: nothing is sent again.
        const sent = server.requests.length;
        const again = await embedMissingChunks(writer, config);
        assert.equal(again.computed, 0);
        assert.equal(again.reused, report.embeddings!.computed);
        assert.equal(server.requests.length, sent);
      } finally {
        writer.close();
      }
      const answer = await run("search", { query: "retry backoff", strategy: "vector" });
      assert.equal(answer.provenance.backend, "embeddings");
      assert.equal(answer.provenance.fallback_used, false);
      assert.ok(answer.results.length > 0);

      // Provider down (timeout, malformed): hashing vectors answer, reported as a fallback.
      for (const mode of ["slow", "malformed"] as const) {
        server.setMode(mode);
        const fallback = await run("search", { query: `cookie merge ${mode}`, strategy: "hybrid" });
        assert.equal(fallback.provenance.fallback_used, true, mode);
        assert.match(fallback.provenance.fallback_reason ?? "", /timed out|malformed/);
        assert.equal(fallback.provenance.backend, "fts+vector");
        assert.equal(fallback.results[0]?.path, "src/cookies.ts");
      }
    });
  } finally {
    await server.close();
  }
});
