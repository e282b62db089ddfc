/**
 * Evidence level 4, one unique definition: when nothing binds a name at its use, the one
 * definition of that name across the resolver scope (in the same language family) is a
 * guess labelled as such; several are candidates, none is a reason.
 */
import { languageFamily } from "./families.ts";
import { type Binding, CLASS_KINDS, isTopLevel, type Scope, type Site } from "./binding.ts";
import type { Candidate, SymbolRecord } from "./types.ts";

/** Kinds a name used as a call or type cannot mean on a guess: data, not code. */
const DATA_KINDS = new Set(["variable", "constant", "field", "property"]);

/**
 * The one definition named `name` in scope, else the candidates: members only when the name
 * was used on a receiver (`options.receiver`), non-members of other files only at top level.
 */
export function uniqueDefinition(
  scope: Scope,
  site: Site,
  options: { name: string; members: boolean; receiver?: string },
): Binding {
  const { store } = scope;
  const { name, receiver } = options;
  // The fitting definitions are the same for every site of a repository and language family
  // (and file, for non-members): found once per request.
  const family = languageFamily(site.language);
  const key = `${site.repo}\0${family}\0${
    options.members ? "" : site.path
  }\0${name}\0${options.members}`;
  const symbols = store.memo(
    `fittingDefinitions\0${key}`,
    () => fittingDefinitions(scope, site, { name, members: options.members }),
  );
  return store.memo(
    `uniqueDefinition\0${key}\0${receiver ?? "\u0001"}`,
    () => bindingOf(symbols, name, receiver),
  );
}

/** What a guess by name binds, given the fitting definitions. */
function bindingOf(symbols: SymbolRecord[], name: string, receiver: string | undefined): Binding {
  const what = receiver ? `'${receiver}.${name}'` : `'${name}'`;
  if (symbols.length === 1) {
    const note = receiver
      ? `the type of '${receiver}' is not statically evident; matched by name`
      : "matched by name: no import or same-file definition names it";
    return { kind: "symbol", symbol: symbols[0], evidence: "unique_name", note };
  }
  if (symbols.length === 0) {
    return { kind: "none", reason: `no definition of ${what} in scope` };
  }
  if (receiver) {
    // Every receiver's reasons start alike: those starts are made once per list (a hub name's
    // uses come with hundreds of receivers and a hundred definitions).
    let starts = RECEIVER_REASONS.get(symbols);
    if (!starts) {
      starts = symbols.map((symbol) =>
        `a ${symbol.kind} named '${name}' in ${symbol.repo}:${symbol.path}; the type of '`
      );
      RECEIVER_REASONS.set(symbols, starts);
    }
    const start = starts;
    return {
      kind: "ambiguous",
      reason: `${symbols.length} definitions of ${what} in scope and no evidence chooses one`,
      candidates: symbols.map((symbol, i) => new ReceiverCandidate(symbol, start[i], receiver)),
    };
  }
  return {
    kind: "ambiguous",
    reason: `${symbols.length} definitions of ${what} in scope and no evidence chooses one`,
    candidates: symbols.map((symbol) => ({
      symbol,
      reason:
        `a ${symbol.kind} named '${name}' in ${symbol.repo}:${symbol.path}; no import binds '${name}' at the use`,
    })),
  };
}

/**
 * A definition a use may mean when its receiver's type is not evident. Its reason is written
 * when read: an answer reads the reasons of a few uses, while kept resolutions hold every use of a
 * hub name, each with a hundred candidates (as strings, ~150 bytes each). Read in the isolate that
 * made it: copied (spread, cloned, stringified), it would leave its reason behind.
 */
class ReceiverCandidate implements Candidate {
  readonly symbol: SymbolRecord;
  readonly #start: string;
  readonly #receiver: string;

  constructor(symbol: SymbolRecord, start: string, receiver: string) {
    this.symbol = symbol;
    this.#start = start;
    this.#receiver = receiver;
  }

  get reason(): string {
    return `${this.#start}${this.#receiver}' is not statically evident`;
  }
}

/** Per list of fitting definitions (one name's, made once per request), each reason's start. */
const RECEIVER_REASONS = new WeakMap<SymbolRecord[], string[]>();

/** The definitions named `name` a use at the site may mean on a guess, one per declaration. */
function fittingDefinitions(
  scope: Scope,
  site: Site,
  options: { name: string; members: boolean },
): SymbolRecord[] {
  const { store } = scope;
  const family = languageFamily(site.language);
  const all = store.symbolsNamed(store.scopeOf(site.repo), options.name).filter((s) =>
    languageFamily(s.language) === family && !DATA_KINDS.has(s.kind)
  );
  const fitting = all.filter((s) => {
    const parent = s.parentId ? store.symbolById(s.repo, s.parentId) : null;
    const isMember = (parent !== null && CLASS_KINDS.has(parent.kind)) || s.kind === "method";
    if (options.members) return isMember;
    return !isMember && (s.path === site.path || isTopLevel(store, s));
  });
  return oneDeclarationEach(fitting);
}

/** One definition with several declarations (overload signatures) is one symbol: the longest. */
function oneDeclarationEach(symbols: SymbolRecord[]): SymbolRecord[] {
  const distinct = new Map<string, SymbolRecord>();
  for (const s of symbols) {
    const key = `${s.repo}\0${s.path}\0${s.qualified}`;
    const seen = distinct.get(key);
    if (!seen || s.endLine - s.startLine > seen.endLine - seen.startLine) distinct.set(key, s);
  }
  return [...distinct.values()];
}
