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

/** The bytes a vector is stored as (little-endian float32). */
export function vectorToBytes(vector: Float32Array): Uint8Array {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i], true);
  return bytes;
}

/** A vector from its stored bytes. */
export function vectorFromBytes(bytes: Uint8Array): Float32Array {
  const length = bytes.byteLength >> 2;
  if (LITTLE_ENDIAN) {
    // Copy into an aligned buffer and view it: no per-element decoding.
    return new Float32Array(bytes.slice(0, length * 4).buffer);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(length);
  for (let i = 0; i < length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Dot product (cosine, for unit vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i] * b[i];
  return sum;
}
