/**
 * The optional embedding provider: an OpenAI-compatible
 * `/v1/embeddings` endpoint (Ollama, llama.cpp server, a hosted API)
 * configured in the `embeddings:` section of `sextant.yml`. Chunk embeddings
 * are stored per content hash and model id; any failure leaves search on the
 * hashing vectors, reported as `fallback_used`.
 */
import { normalize } from "../engine/vector.ts";
import type { TargetWriter } from "../store/writer.ts";

export interface EmbeddingConfig {
  /** Full URL of the embeddings endpoint. */
  endpoint: string;
  model: string;
  /** Asked of the provider when set (models that can shorten their vectors). */
  dimensions: number | null;
  batchSize: number;
  timeoutMs: number;
  /** Name of the environment variable holding an API key (the key itself is never in the file). */
  apiKeyEnv: string | null;
}

/** Why an embedding request failed. */
export class EmbeddingError extends Error {
  override name = "EmbeddingError";
}

/**
 * The `embeddings:` section of a parsed `sextant.yml`, or null when absent.
 * Throws `TypeError` naming the bad key.
 */
export function embeddingConfig(raw: unknown): EmbeddingConfig | null {
  const section = (raw as Record<string, unknown> | null)?.embeddings;
  if (section === undefined || section === null || section === false) return null;
  if (typeof section !== "object" || Array.isArray(section)) {
    throw new TypeError("Cannot parse sextant.yml: key 'embeddings' is not a mapping");
  }
  const s = section as Record<string, unknown>;
  const text = (key: string, required: boolean): string | null => {
    const value = s[key];
    if (value === undefined || value === null) {
      if (required) {
        throw new TypeError(`Cannot parse sextant.yml: key 'embeddings.${key}' is missing`);
      }
      return null;
    }
    if (typeof value !== "string" || value.trim() === "") {
      throw new TypeError(`Cannot parse sextant.yml: key 'embeddings.${key}' is not a string`);
    }
    return value.trim();
  };
  const integer = (key: string, fallback: number | null): number | null => {
    const value = s[key];
    if (value === undefined || value === null) return fallback;
    if (!Number.isInteger(value) || (value as number) < 1) {
      throw new TypeError(
        `Cannot parse sextant.yml: key 'embeddings.${key}' is not a positive integer`,
      );
    }
    return value as number;
  };
  let endpoint = text("endpoint", true)!;
  if (!/^https?:\/\//.test(endpoint)) {
    throw new TypeError(
      "Cannot parse sextant.yml: key 'embeddings.endpoint' is not an http(s) URL",
    );
  }
  // `http://host:11434` and `http://host/v1` both mean the standard path.
  endpoint = endpoint.replace(/\/+$/, "");
  if (!endpoint.endsWith("/embeddings")) {
    endpoint = endpoint.endsWith("/v1") ? `${endpoint}/embeddings` : `${endpoint}/v1/embeddings`;
  }
  return {
    endpoint,
    model: text("model", true)!,
    dimensions: integer("dimensions", null),
    batchSize: Math.min(2048, integer("batch_size", 64)!),
    timeoutMs: integer("timeout_ms", 30_000)!,
    apiKeyEnv: text("api_key_env", false),
  };
}

/** The id provider vectors are stored under: model and dimensions. */
export function providerModelId(config: EmbeddingConfig): string {
  return `provider:${config.model}:${config.dimensions ?? "native"}`;
}

/** Embeds texts in one request; unit vectors in input order. Throws `EmbeddingError`. */
export async function embedTexts(
  config: EmbeddingConfig,
  texts: string[],
): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const headers: Record<string, string> = { "content-type": "application/json" };
  const key = config.apiKeyEnv ? Deno.env.get(config.apiKeyEnv) : undefined;
  if (key) headers.authorization = `Bearer ${key}`;
  const body: Record<string, unknown> = { model: config.model, input: texts };
  if (config.dimensions) body.dimensions = config.dimensions;
  let reply: unknown;
  try {
    const response = await fetch(config.endpoint, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(config.timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new EmbeddingError(`embedding provider answered HTTP ${response.status}`);
    }
    reply = await response.json();
  } catch (error) {
    if (error instanceof EmbeddingError) throw error;
    const name = (error as Error)?.name;
    if (name === "TimeoutError" || name === "AbortError") {
      throw new EmbeddingError(`embedding provider timed out after ${config.timeoutMs} ms`);
    }
    throw new EmbeddingError(`embedding provider failed: ${(error as Error)?.message ?? error}`);
  }
  return parseReply(reply, texts.length, config.dimensions);
}

/** Checks an `/v1/embeddings` reply: one finite vector per input, all of one size. */
function parseReply(reply: unknown, expected: number, dimensions: number | null): Float32Array[] {
  const data = (reply as { data?: unknown })?.data;
  if (!Array.isArray(data) || data.length !== expected) {
    throw new EmbeddingError(
      `embedding provider reply is malformed: expected ${expected} embeddings in 'data'`,
    );
  }
  const vectors: Float32Array[] = new Array(expected);
  let size = dimensions;
  for (const [position, item] of data.entries()) {
    const embedding = (item as { embedding?: unknown })?.embedding;
    const index = (item as { index?: unknown })?.index;
    const at = Number.isInteger(index) ? index as number : position;
    if (
      !Array.isArray(embedding) || embedding.length === 0 ||
      !embedding.every((value) => typeof value === "number" && Number.isFinite(value)) ||
      at < 0 || at >= expected || vectors[at] !== undefined
    ) {
      throw new EmbeddingError("embedding provider reply is malformed: bad 'embedding' entry");
    }
    size ??= embedding.length;
    if (embedding.length !== size) {
      throw new EmbeddingError(
        `embedding provider reply is malformed: ${embedding.length} dimensions, expected ${size}`,
      );
    }
    vectors[at] = normalize(Float32Array.from(embedding as number[]));
  }
  return vectors;
}

/** What embedding the chunks of a target did. */
export interface EmbeddingReport {
  model: string;
  computed: number;
  reused: number;
  error: string | null;
}

/**
 * Stores provider vectors for every chunk content hash that has none for this
 * model yet (unchanged chunks are never sent again). Stops at the first failed
 * batch and reports it; what was stored stays.
 */
export async function embedMissingChunks(
  writer: TargetWriter,
  config: EmbeddingConfig,
): Promise<EmbeddingReport> {
  const model = providerModelId(config);
  const missing = writer.chunksWithoutVector(model);
  const reused = writer.distinctChunkContents() - missing.length;
  let computed = 0;
  for (let i = 0; i < missing.length; i += config.batchSize) {
    const batch = missing.slice(i, i + config.batchSize);
    const texts = batch.map((row) => row.text.slice(0, 8000));
    try {
      const vectors = await embedTexts(config, texts);
      batch.forEach((row, j) => writer.storeVector(row.hash, model, vectors[j]));
      computed += batch.length;
    } catch (error) {
      return { model, computed, reused, error: (error as Error).message };
    }
  }
  return { model, computed, reused, error: null };
}
