/**
 * Paging for every action: one opaque cursor format, `limit`, and one
 * token-budget fitter.
 *
 * A cursor names the request it continues (action and the params that shape
 * the answer, hashed), the generation of every repository the answer read, and
 * a position (an offset into the ranked answer, or grep's place in its walk).
 * It is base64url JSON with a checksum: anything else, or a cursor of another
 * request, is `InvalidParams`; a cursor issued at an older generation is
 * refused, since the answer it continues no longer exists.
 *
 * A token budget counts a hit as its JSON length / 4. A page holds at least one
 * hit: under a budget smaller than the first, that hit is cut to fit (its
 * snippet shortened) and the cursor still moves past it.
 */
import { sha256Hex } from "../engine/hash.ts";
import { WireError } from "../protocol/errors.ts";
import type { RepositoryState, ResultHit } from "../protocol/types.ts";

/** Params that only say which page to return, not what the answer is. */
const PAGE_PARAMS: ReadonlySet<string> = new Set(["cursor", "limit", "token_budget", "refresh"]);

const VERSION = 1;

/** What a cursor is bound to: the request and the generations its answer was read at. */
export interface CursorBinding {
  action: string;
  /** The request's params (the page params are ignored). */
  params: Readonly<Record<string, unknown>>;
  /** Each repository the answer reads, with its generation now. */
  repositories: readonly RepositoryState[];
}

/** Tokens a value costs in an answer: its JSON length / 4, rounded up. */
export function tokenCost(value: unknown): number {
  return Math.ceil(JSON.stringify(value).length / 4);
}

/** Encodes a cursor that continues a request at `position`. */
export function issueCursor(binding: CursorBinding, position: unknown): string {
  const body = JSON.stringify([
    VERSION,
    binding.action,
    requestKey(binding),
    binding.repositories.map((state) => [state.name, state.generation]),
    position,
  ]);
  return `${base64url(body)}.${checksum(body)}`;
}

/**
 * Decodes a cursor of this request; throws `InvalidParams` for anything not
 * issued for it, or issued at a generation the index has moved past.
 */
export function readCursor<T>(
  text: string,
  binding: CursorBinding,
  isPosition: (value: unknown) => value is T,
): T {
  const notOurs = () =>
    new WireError(
      "InvalidParams",
      "Cannot read cursor: it is not a next_cursor this server issued",
    );
  const [encoded, sum, ...rest] = text.split(".");
  let value: unknown;
  try {
    const body = new TextDecoder("utf-8", { fatal: true }).decode(fromBase64url(encoded));
    if (rest.length > 0 || sum !== checksum(body)) throw notOurs();
    value = JSON.parse(body);
  } catch {
    throw notOurs();
  }
  if (!Array.isArray(value) || value.length !== 5 || value[0] !== VERSION) throw notOurs();
  const [, action, key, generations, position] = value;
  if (action !== binding.action || key !== requestKey(binding)) {
    throw new WireError(
      "InvalidParams",
      `Cannot use cursor: it continues another request (a different action, params or scope)`,
    );
  }
  if (!Array.isArray(generations) || !isPosition(position)) throw notOurs();
  const issued = new Map<string, unknown>();
  for (const entry of generations) {
    if (!Array.isArray(entry) || typeof entry[0] !== "string") throw notOurs();
    issued.set(entry[0], entry[1]);
  }
  const names = binding.repositories.map((state) => state.name);
  if (issued.size !== names.length || names.some((name) => !issued.has(name))) {
    throw new WireError(
      "InvalidParams",
      "Cannot use cursor: it continues another request (a different action, params or scope)",
    );
  }
  for (const state of binding.repositories) {
    const then = issued.get(state.name);
    if (then !== state.generation) {
      throw new WireError(
        "InvalidParams",
        `Cannot continue cursor: the index of '${state.name}' changed since it was issued ` +
          `(generation ${then}, now ${state.generation}); repeat the request without 'cursor'`,
      );
    }
  }
  return position;
}

/** A position that is an offset into a ranked answer. */
export function isOffset(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** Fills one page of hits within `limit` and a token budget. */
export class PageFitter {
  readonly results: ResultHit[] = [];
  readonly limitations: string[] = [];
  /** Why the page ended before the answer did, once it has. */
  stoppedBy: "limit" | "token_budget" | null = null;
  readonly #limit: number;
  readonly #budget: number | null;
  #used = 0;

  constructor(options: { limit: number; tokenBudget?: number | null }) {
    this.#limit = options.limit;
    this.#budget = options.tokenBudget ?? null;
  }

  /** True while another hit may fit (under `limit`, budget not yet reached). */
  get open(): boolean {
    return this.stoppedBy === null && this.results.length < this.#limit;
  }

  /** Whether a hit would be taken whole now (room under `limit` and in the budget). */
  fits(hit: ResultHit): boolean {
    if (this.stoppedBy !== null || this.results.length >= this.#limit) return false;
    return this.#budget === null || this.#used + tokenCost(hit) <= this.#budget;
  }

  /**
   * Offers the next hit: true when it was taken (the first one cut to fit when
   * it alone exceeds the budget), false when the page ended before it.
   */
  offer(hit: ResultHit): boolean {
    if (this.stoppedBy !== null) return false;
    if (this.results.length >= this.#limit) {
      this.stoppedBy = "limit";
      return false;
    }
    if (this.#budget === null) {
      this.results.push(hit);
      return true;
    }
    const cost = tokenCost(hit);
    if (this.#used + cost <= this.#budget) {
      this.#used += cost;
      this.results.push(hit);
      return true;
    }
    if (this.results.length > 0) {
      this.stoppedBy = "token_budget";
      this.limitations.push(
        `answer cut to fit token_budget ${this.#budget}: continue with next_cursor`,
      );
      return false;
    }
    const cut = cutToFit(hit, this.#budget);
    this.#used += tokenCost(cut);
    this.results.push(cut);
    this.stoppedBy = "token_budget";
    this.limitations.push(
      `the first result alone exceeds token_budget ${this.#budget}: its snippet was cut; ` +
        "continue with next_cursor",
    );
    return true;
  }
}

/**
 * One page of a ranked answer from `offset`: the hits that fit, and the offset
 * of the next page (null when the answer ends on this page).
 */
export function pageOf(
  items: readonly ResultHit[],
  options: { offset: number; limit: number; tokenBudget?: number | null },
): { results: ResultHit[]; next: number | null; limitations: string[] } {
  const fitter = new PageFitter(options);
  for (let i = options.offset; i < items.length && fitter.open; i++) {
    if (!fitter.offer(items[i])) break;
  }
  const end = options.offset + fitter.results.length;
  return {
    results: fitter.results,
    next: end < items.length ? end : null,
    limitations: fitter.limitations,
  };
}

/** A hit with its snippet shortened (whole lines first, then characters) to fit `budget` tokens. */
export function cutToFit(hit: ResultHit, budget: number): ResultHit {
  if (tokenCost(hit) <= budget) return hit;
  const lines = hit.snippet.split("\n");
  let keep = lines.length;
  while (keep > 1 && tokenCost({ ...hit, snippet: lines.slice(0, keep).join("\n") }) > budget) {
    keep = Math.floor(keep / 2);
  }
  let snippet = lines.slice(0, keep).join("\n");
  while (snippet.length > 0 && tokenCost({ ...hit, snippet }) > budget) {
    snippet = snippet.slice(0, Math.floor(snippet.length / 2));
  }
  return { ...hit, snippet };
}

/** The hash of what a request asks (action and params but the page params). */
function requestKey(binding: CursorBinding): string {
  const shaping = Object.keys(binding.params).filter((key) => !PAGE_PARAMS.has(key)).sort()
    .map((key) => [key, binding.params[key]]);
  return sha256Hex(JSON.stringify([binding.action, shaping])).slice(0, 16);
}

function checksum(body: string): string {
  return sha256Hex(`sextant-cursor\0${body}`).slice(0, 12);
}

function base64url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
