/**
 * The default vectorizer (SPEC §8): deterministic, dependency-free feature
 * hashing of code terms (whole identifiers and their parts) and character
 * trigrams into a fixed number of float32 dimensions, L2-normalised so a dot
 * product is a cosine. Pure: terms in, vector out.
 */

/** Dimensions of hashing vectors. */
export const HASH_DIMENSIONS = 256;
/** The model id hashing vectors are stored under; changes when features change. */
export const HASH_MODEL_ID = `hash-v1-${HASH_DIMENSIONS}`;

/** Weight of one character trigram relative to a whole term. */
const TRIGRAM_WEIGHT = 0.25;

/** FNV-1a, 32-bit. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function addFeature(vector: Float32Array, feature: string, weight: number): void {
  const hash = fnv1a(feature);
  // The low bits pick the dimension, a high bit the sign (signed hashing keeps collisions unbiased).
  const sign = hash & 0x80000000 ? -1 : 1;
  vector[hash % vector.length] += sign * weight;
}

/**
 * The hashing vector of weighted terms (`[term, weight]`, e.g. term counts):
 * each term adds itself with weight `1 + ln(weight)` and its character
 * trigrams with a quarter of that, so `parseConfig` is near `configParser`.
 */
export function hashVector(
  terms: Iterable<readonly [string, number]>,
  dimensions = HASH_DIMENSIONS,
): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const [term, count] of terms) {
    if (count <= 0) continue;
    const weight = 1 + Math.log(count);
    addFeature(vector, term, weight);
    if (term.length < 4) continue;
    const padded = `^${term}$`;
    for (let i = 0; i + 3 <= padded.length; i++) {
      addFeature(vector, `#${padded.slice(i, i + 3)}`, weight * TRIGRAM_WEIGHT);
    }
  }
  return normalize(vector);
}

/** Term counts of a space-separated term string (what chunks store for FTS). */
export function termCounts(terms: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms.split(" ")) {
    if (term) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return counts;
}

/** Scales a vector to unit length in place (a zero vector stays zero). */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] *= scale;
  return vector;
}

/** The bytes a vector is stored as (little-endian float32). */
export function vectorToBytes(vector: Float32Array): Uint8Array {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i], true);
  return bytes;
}

/** A vector from its stored bytes. */
export function vectorFromBytes(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(bytes.byteLength >> 2);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

/** Dot product (cosine, for unit vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i] * b[i];
  return sum;
}
