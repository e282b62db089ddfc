/**
 * Every action's descriptor in one place: its name, the shape of its params
 * (validated at the boundary before any backend runs) and its result type.
 * Like vscode-jsonrpc's `RequestType<P, R>`, each descriptor also carries both
 * types for the compiler: `MethodParams<"search">` is the params object its
 * field specs describe, `MethodResult<"search">` the envelope it answers.
 */
import { WireError } from "./errors.ts";
import type {
  ActionName,
  Envelope,
  GrepData,
  NavigationData,
  RefreshData,
  SearchData,
  StatusData,
} from "./types.ts";

type FieldType = "string" | "integer" | "boolean" | "string[]";

export interface FieldSpec {
  type: FieldType;
  required?: boolean;
  oneOf?: readonly string[];
  min?: number;
  max?: number;
  /** One line for a person or a model: what the value means. */
  description: string;
  /**
   * The value the CLI and MCP send when the caller gives none (the wire's default is absence):
   * read actions reconcile first, `status` reports the index as it is.
   */
  callerDefault?: boolean;
}

export interface MethodDescriptor<
  S extends Record<string, FieldSpec> = Record<string, FieldSpec>,
  R = Envelope,
> {
  name: ActionName;
  /** One line (CLI help). */
  summary: string;
  /** A paragraph written for a model: when to use it instead of grep, what exact means. */
  description: string;
  /** The param the CLI takes positionally, if any. */
  argument?: string;
  params: S;
  /** The result's type by name: the envelope and what its `data` holds (docs and schemas). */
  resultType: string;
  /** Carries the result type for the compiler only; never set. */
  readonly result?: R;
}

/** The value a field spec accepts. */
type FieldValue<F> = F extends { type: "string"; oneOf: readonly (infer O)[] } ? O
  : F extends { type: "string" } ? string
  : F extends { type: "integer" } ? number
  : F extends { type: "boolean" } ? boolean
  : F extends { type: "string[]" } ? string[]
  : never;

/** The params object a record of field specs describes: required fields, then optional ones. */
export type ParamsOf<S> =
  & { -readonly [K in keyof S as S[K] extends { required: true } ? K : never]: FieldValue<S[K]> }
  & { -readonly [K in keyof S as S[K] extends { required: true } ? never : K]?: FieldValue<S[K]> };

/** A descriptor whose params type is inferred from its field specs and whose result is `R`. */
function describe<R>() {
  return <const S extends Record<string, FieldSpec>>(
    descriptor: Omit<MethodDescriptor<S, R>, "result">,
  ): MethodDescriptor<S, R> => descriptor;
}

/** Input limits: largest `limit`, string param bytes, `paths` entries, `depth`, `token_budget`. */
export const LIMITS = {
  limit: 1000,
  queryBytes: 100_000,
  paths: 64,
  depth: 1000,
  tokenBudget: 1_000_000,
};

/** A traversal depth: actions clamp deeper requests to what they serve; beyond this it is an error. */
const depthField = {
  type: "integer",
  min: 1,
  max: LIMITS.depth,
  description: "How many hops to follow (deeper requests are clamped and told so)",
} as const satisfies FieldSpec;

const common = {
  repo: {
    type: "string",
    description: "Answer from this repository only (the resolver still sees its project siblings)",
  },
  paths: { type: "string[]", description: "Repository-relative globs the answer is limited to" },
  language: {
    type: "string",
    description: "Only files of this language (e.g. python, typescript)",
  },
  limit: { type: "integer", min: 1, max: LIMITS.limit, description: "At most this many results" },
  refresh: {
    type: "boolean",
    description: "Reconcile the index with the working tree first (cheap when nothing changed)",
    callerDefault: true,
  },
  token_budget: {
    type: "integer",
    min: 1,
    max: LIMITS.tokenBudget,
    description: "Fit the answer to about this many tokens (bytes / 4)",
  },
  cursor: { type: "string", description: "The next_cursor of a truncated answer, to continue it" },
} as const satisfies Record<string, FieldSpec>;

/** The params of the index actions (`status`, `refresh`, `rebuild`). */
const indexParams = {
  repo: { type: "string", description: "This repository only (default: every visible one)" },
  token_budget: {
    type: "integer",
    min: 1,
    max: LIMITS.tokenBudget,
    description: "Fit the answer to about this many tokens (bytes / 4): long lists are shortened",
  },
} as const satisfies Record<string, FieldSpec>;

/** How navigation actions name their subject: a symbol, or the use at path + line + column. */
const navigationTarget = {
  symbol: {
    type: "string",
    description: "A name or qualified name (Class.method, pkg.Type.Method, crate::m::f)",
  },
  path: {
    type: "string",
    description: "A repository-relative file: with line and column, the use there; alone, the file",
  },
  line: { type: "integer", min: 1, description: "1-based line of a use in 'path'" },
  column: { type: "integer", min: 1, description: "1-based column of a use in 'path'" },
} as const satisfies Record<string, FieldSpec>;

const formatField = {
  type: "string",
  oneOf: ["list", "mermaid"],
  description: "'mermaid' adds a diagram of the relationships",
} as const satisfies FieldSpec;

const navigation = describe<Envelope<NavigationData>>();

/** Every action's descriptor, typed: `MethodParams` and `MethodResult` read their types. */
export const DESCRIPTORS = {
  search: describe<Envelope<SearchData>>()({
    name: "search",
    resultType: "Envelope<SearchData>",
    summary: "Ranked code chunks for natural language, an identifier or a source phrase",
    description:
      "Find where something is implemented or discussed: pass an identifier, a phrase, an error " +
      "message or a whole issue text with its traceback. Use it instead of grep when you do not " +
      "know the exact spelling or file: it ranks chunks by code-aware full-text match, vectors, " +
      "symbol names and paths, and returns snippets of the indexed text. Its confidence says how " +
      "far the top file leads: 'reliable', 'candidate' or 'weak' (then read more than the top hit).",
    argument: "query",
    params: {
      ...common,
      query: {
        type: "string",
        required: true,
        description: "Natural language, an identifier, a source phrase or an issue text",
      },
      strategy: {
        type: "string",
        oneOf: ["hybrid", "lexical", "vector"],
        description: "Ranking backends (default hybrid)",
      },
      kind: {
        type: "string",
        oneOf: ["local", "dependency", "doc", "all"],
        description: "The repository's own code, its dependencies, documentation, or all",
      },
    },
  }),
  symbols: describe<Envelope>()({
    name: "symbols",
    resultType: "Envelope",
    summary: "Symbol definitions by name, qualified name or prefix",
    description:
      "Look up definitions by name, qualified name (module.Class.method) or prefix across the " +
      "workspace, like an editor's 'go to symbol'. Faster and more exact than grepping for " +
      "'def name' or 'function name': every hit is a definition with its kind, signature and " +
      "range, read from the symbol index.",
    argument: "query",
    params: {
      ...common,
      query: { type: "string", required: true, description: "A name, qualified name or prefix" },
      kind: { type: "string", description: "Only this kind (function, method, class, …)" },
    },
  }),
  grep: describe<Envelope<GrepData>>()({
    name: "grep",
    resultType: "Envelope<GrepData>",
    summary: "Structural matches of a by-example code pattern with metavariables",
    description:
      "Structural search by example: write code in the target language with metavariables " +
      "($X one node, $$$ARGS any number of nodes, $_ one node not captured), e.g. " +
      "'requests.get($URL, $$$ARGS)'. Unlike text grep it never matches inside comments or " +
      "strings and ignores formatting; each match comes with its bindings. Results are exact " +
      "matches of the indexed text.",
    argument: "pattern",
    params: {
      ...common,
      pattern: {
        type: "string",
        required: true,
        description: "Code with metavariables ($X, $$$ARGS, $_)",
      },
      timeout_ms: {
        type: "integer",
        min: 1,
        max: 600_000,
        description: "Stop after this many milliseconds and return what was found",
      },
    },
  }),
  definition: navigation({
    name: "definition",
    resultType: "Envelope<NavigationData>",
    summary: "Where a symbol (name, qualified name, or the use at path:line:column) is defined",
    description:
      "Go to definition: name a symbol, or point at a use with path, line and column. The " +
      "answer follows imports and module paths across the repository and its project " +
      "siblings; 'exact' means proven by scope, imports or module paths, 'approximate' means " +
      "the only definition of that name in scope. Ambiguous names answer with candidates.",
    argument: "symbol",
    params: { ...common, ...navigationTarget },
  }),
  references: navigation({
    name: "references",
    resultType: "Envelope<NavigationData>",
    summary: "Incoming structural relationships of a symbol",
    description:
      "Every place that uses a symbol (calls, imports, reads, writes, type uses, inheritance), " +
      "resolved through imports rather than matched by name, so same-named symbols elsewhere " +
      "are not mixed in. Each hit says whether it is exact or approximate and why.",
    argument: "symbol",
    params: { ...common, ...navigationTarget },
  }),
  callers: navigation({
    name: "callers",
    resultType: "Envelope<NavigationData>",
    summary: "Incoming calls of a symbol, transitively up to depth",
    description:
      "Who calls this function or method, transitively up to 'depth', each with the path of " +
      "calls that reached it. Dynamic dispatch and reflection are reported as limitations.",
    argument: "symbol",
    params: { ...common, ...navigationTarget, depth: depthField },
  }),
  callees: navigation({
    name: "callees",
    resultType: "Envelope<NavigationData>",
    summary: "Outgoing calls of a symbol, transitively up to depth",
    description:
      "What this function or method calls, transitively up to 'depth', each call resolved to " +
      "its definition where the evidence allows (exact) or by unique name (approximate).",
    argument: "symbol",
    params: { ...common, ...navigationTarget, depth: depthField },
  }),
  impact: navigation({
    name: "impact",
    resultType: "Envelope<NavigationData>",
    summary: "Transitive inbound relationships of a symbol, a path or the uncommitted diff",
    description:
      "What may break if this changes: everything that depends on a symbol, a file, or the " +
      "uncommitted changes (diff: true), transitively up to 'depth' (default 3), each with the " +
      "path of relationships that reached it.",
    argument: "symbol",
    params: {
      ...common,
      ...navigationTarget,
      diff: { type: "boolean", description: "Start from the uncommitted changes against HEAD" },
      depth: depthField,
      format: formatField,
    },
  }),
  neighborhood: navigation({
    name: "neighborhood",
    resultType: "Envelope<NavigationData>",
    summary: "Bounded bidirectional relationships around a symbol",
    description:
      "The relationships around a symbol in both directions (what it uses and what uses it), " +
      "up to 'depth'; format 'mermaid' adds a diagram.",
    argument: "symbol",
    params: {
      ...common,
      ...navigationTarget,
      depth: depthField,
      format: formatField,
    },
  }),
  status: describe<Envelope<StatusData>>()({
    name: "status",
    resultType: "Envelope<StatusData>",
    summary: "Per-repository generation, HEAD, files, languages, errors and limitations",
    description:
      "The state of the index: per repository its generation, git HEAD, file, symbol and " +
      "relation counts, languages, files that failed to index, limitations and the health of " +
      "each backend. Use it to tell whether an empty answer means 'absent' or 'not indexed'.",
    params: {
      ...indexParams,
      refresh: {
        type: "boolean",
        description: "Reconcile the index with the working tree first",
      },
    },
  }),
  refresh: describe<Envelope<RefreshData>>()({
    name: "refresh",
    resultType: "Envelope<RefreshData>",
    summary: "Reconcile repositories with their working trees now",
    description:
      "Bring the index up to date with the working tree now (only changed files are parsed). " +
      "Other actions accept refresh: true to do the same first.",
    params: { ...indexParams },
  }),
  rebuild: describe<Envelope<RefreshData>>()({
    name: "rebuild",
    resultType: "Envelope<RefreshData>",
    summary: "Drop a repository's target and index it again",
    description:
      "Drop a repository's index and build it again from the files; for a damaged index.",
    params: { ...indexParams },
  }),
} as const;

/** The name of an action the dispatch table answers. */
export type MethodName = keyof typeof DESCRIPTORS;

/** The validated params of an action, as its field specs describe them. */
export type MethodParams<M extends MethodName> = ParamsOf<(typeof DESCRIPTORS)[M]["params"]>;

/** What an action answers. */
export type MethodResult<M extends MethodName> = NonNullable<(typeof DESCRIPTORS)[M]["result"]>;

/** The descriptors by name, for lookups by a name from the wire. */
export const METHODS: Readonly<Record<string, MethodDescriptor>> = DESCRIPTORS;

/** Whether a name from the wire is an action of the dispatch table. */
export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(DESCRIPTORS, name);
}

/** Validates params against a method's descriptor; throws `InvalidParams` naming the field. */
export function validateParams<M extends MethodName>(method: M, params: unknown): MethodParams<M>;
export function validateParams(method: string, params: unknown): Record<string, unknown>;
export function validateParams(method: string, params: unknown): Record<string, unknown> {
  if (!isMethodName(method)) throw new WireError("MethodNotFound", `Unknown action '${method}'`);
  const descriptor: MethodDescriptor = DESCRIPTORS[method];
  if (params === undefined || params === null) params = {};
  if (typeof params !== "object" || Array.isArray(params)) {
    throw new WireError("InvalidParams", `Params of '${method}' must be an object`);
  }
  const record = params as Record<string, unknown>;
  for (const [field, spec] of Object.entries(descriptor.params)) {
    const value = record[field];
    if (value === undefined || value === null) {
      if (spec.required) throw new WireError("InvalidParams", `'${method}' needs '${field}'`);
      continue;
    }
    checkField(method, field, spec, value);
  }
  for (const field of Object.keys(record)) {
    if (!(field in descriptor.params)) {
      throw new WireError("InvalidParams", `'${method}' has no parameter '${field}'`);
    }
  }
  return record;
}

function checkField(method: string, field: string, spec: FieldSpec, value: unknown): void {
  const fail = (what: string) => {
    throw new WireError("InvalidParams", `'${method}' parameter '${field}' ${what}`);
  };
  switch (spec.type) {
    case "string":
      if (typeof value !== "string") fail("must be a string");
      if (new TextEncoder().encode(value as string).length > LIMITS.queryBytes) {
        throw new WireError(
          "LimitExceeded",
          `'${method}' parameter '${field}' exceeds ${LIMITS.queryBytes} bytes`,
        );
      }
      if (spec.oneOf && !spec.oneOf.includes(value as string)) {
        fail(`must be one of ${spec.oneOf.join(", ")}`);
      }
      break;
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) fail("must be an integer");
      if (spec.min !== undefined && (value as number) < spec.min) {
        fail(`must be at least ${spec.min}`);
      }
      if (spec.max !== undefined && (value as number) > spec.max) {
        throw new WireError(
          "LimitExceeded",
          `'${method}' parameter '${field}' exceeds ${spec.max}`,
        );
      }
      break;
    case "boolean":
      if (typeof value !== "boolean") fail("must be a boolean");
      break;
    case "string[]":
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
        fail("must be a list of strings");
      }
      if ((value as string[]).length > LIMITS.paths) {
        fail(`may hold at most ${LIMITS.paths} entries`);
      }
      break;
  }
}
