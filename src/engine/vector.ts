/**
 * The default vectorizer (always stored; an embedding provider's vectors come
 * on top): deterministic, dependency-free feature hashing of code terms (whole
 * identifiers and their parts) and character trigrams into a fixed number of
 * float32 dimensions, L2-normalised so a dot product is a cosine. Pure: terms
 * in, vector out.
 */

/** Dimensions of hashing vectors. */
export const HASH_DIMENSIONS = 256;
/** The model id hashing vectors are stored under; changes when features change. */
export const HASH_MODEL_ID = `hash-v1-${HASH_DIMENSIONS}`;

/** Weight of one character trigram relative to a whole term. */
const TRIGRAM_WEIGHT = 0.25;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Trigram features hash from this seed (a `#` prefix), apart from whole terms. */
const TRIGRAM_SEED = Math.imul(FNV_OFFSET ^ 35, FNV_PRIME) >>> 0;
const BOUNDARY = 94; // `^`, and `$` below: word start and end in trigrams
const END = 36;

/** FNV-1a, 32-bit, of a string. */
function fnv1a(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

function addHashed(vector: Float32Array, hash: number, weight: number): void {
  // The low bits pick the dimension, a high bit the sign (signed hashing keeps collisions unbiased).
  vector[hash % vector.length] += hash & 0x80000000 ? -weight : weight;
}

/**
 * The hashing vector of weighted terms (`[term, weight]`, e.g. term counts):
 * each term adds itself with weight `1 + ln(weight)` and its character
 * trigrams (with word-boundary marks) with a quarter of that, so
 * `parseConfig` is near `configParser`.
 */
export function hashVector(
  terms: Iterable<readonly [string, number]>,
  dimensions = HASH_DIMENSIONS,
): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const [term, count] of terms) {
    if (count <= 0) continue;
    const weight = 1 + Math.log(count);
    addHashed(vector, fnv1a(term) >>> 0, weight);
    if (term.length < 4) continue;
    // Trigrams of `^term$`, hashed from char codes without building substrings.
    const trigramWeight = weight * TRIGRAM_WEIGHT;
    const last = term.length + 1;
    for (let i = 0; i + 3 <= last + 1; i++) {
      let hash = TRIGRAM_SEED;
      for (let j = i; j < i + 3; j++) {
        const code = j === 0 ? BOUNDARY : j === last ? END : term.charCodeAt(j - 1);
        hash = Math.imul(hash ^ code, FNV_PRIME);
      }
      addHashed(vector, hash >>> 0, trigramWeight);
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

/**
 * A vector as stored: a little-endian float32 scale (the largest magnitude /
 * 127), then one int8 per dimension (the component / scale, rounded). A
 * quarter of float32's bytes; search scans these values as they are.
 */
export function quantizedBytes(vector: Float32Array): Uint8Array {
  let max = 0;
  for (let i = 0; i < vector.length; i++) {
    const magnitude = Math.abs(vector[i]);
    if (magnitude > max) max = magnitude;
  }
  const bytes = new Uint8Array(4 + vector.length);
  new DataView(bytes.buffer).setFloat32(0, max === 0 ? 0 : max / 127, true);
  const values = new Int8Array(bytes.buffer, 4);
  const quantum = max === 0 ? 0 : 127 / max;
  for (let i = 0; i < vector.length; i++) values[i] = Math.round(vector[i] * quantum);
  return bytes;
}

/** The scale and int8 values of a stored vector (`quantizedBytes`); the values are a view. */
export function readQuantized(bytes: Uint8Array): { scale: number; values: Int8Array } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    scale: bytes.byteLength >= 4 ? view.getFloat32(0, true) : 0,
    values: new Int8Array(bytes.buffer, bytes.byteOffset + 4, Math.max(0, bytes.byteLength - 4)),
  };
}

/** Dot product (cosine, for unit vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i] * b[i];
  return sum;
}
