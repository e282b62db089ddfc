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
  ContextData,
  Envelope,
  GrepData,
  MapData,
  NavigationData,
  OutlineData,
  RefreshData,
  SearchData,
  StatusData,
  VerifyData,
} from "./types.ts";

/** A param's type; `object[]` is a list of records whose fields `fields` describes. */
type FieldType = "string" | "integer" | "boolean" | "string[]" | "object[]";

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
  /** The fields of each record of an `object[]` param (scalar types only). */
  fields?: Readonly<Record<string, FieldSpec>>;
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
  : F extends { type: "object[]"; fields: infer S } ? ParamsOf<S>[]
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

/**
 * Input limits: largest `limit`, string param bytes, `paths` entries, `depth`,
 * `token_budget`, records of an `object[]` param (verify's citations).
 */
export const LIMITS = {
  limit: 1000,
  queryBytes: 100_000,
  paths: 64,
  depth: 1000,
  tokenBudget: 1_000_000,
  records: 1000,
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
  map: describe<Envelope<MapData>>()({
    name: "map",
    resultType: "Envelope<MapData>",
    summary: "The most central files and their key definitions, fitted to a token budget",
    description:
      "A repository map to orient yourself before reading code: files ranked by PageRank over " +
      "the reference graph (who uses whose definitions), each with the signatures of its most " +
      "used definitions, fitted to token_budget (default about 1000 tokens). Give a focus (an " +
      "issue text, paths, symbol names) to rank the files around it; files changed in the " +
      "working tree count as focus too. role 'onboarding' lists an onboarding path instead: " +
      "entry points, then core modules, then utilities, each with why. Ranks are approximate " +
      "(references are matched by name and import path); it shows signatures and doc " +
      "sentences, never bodies: read those with context, search or definition.",
    argument: "focus",
    params: {
      ...common,
      focus: {
        type: "string",
        description:
          "What to rank around: free text (an issue, a question), paths and symbol names",
      },
      role: {
        type: "string",
        oneOf: ["central", "onboarding"],
        description:
          "'central' ranks by centrality (default); 'onboarding' orders entry points, core, utilities",
      },
      uncommitted: {
        type: "boolean",
        description: "Rank around the files changed in the working tree against HEAD too",
        callerDefault: true,
      },
    },
  }),
  outline: describe<Envelope<OutlineData>>()({
    name: "outline",
    resultType: "Envelope<OutlineData>",
    summary: "The tree repository → directory → file → symbol with one-line summaries",
    description:
      "The shape of a repository or a directory without reading files: each directory, file " +
      "and definition to 'depth' levels below 'path', one line each (a definition's signature " +
      "and the first sentence of its doc; a file's module doc or what it defines; a " +
      "directory's counts). Cheaper than listing and opening files; exact (read from the " +
      "symbol index). Page through a large tree with next_cursor.",
    argument: "path",
    params: {
      ...common,
      path: {
        type: "string",
        description: "A repository-relative directory or file to start from (default: the root)",
      },
      depth: {
        type: "integer",
        min: 1,
        max: LIMITS.depth,
        description:
          "Levels below 'path' to show (default 2; directories, files and nested definitions " +
          "each count one)",
      },
    },
  }),
  context: describe<Envelope<ContextData>>()({
    name: "context",
    resultType: "Envelope<ContextData>",
    summary: "A context pack: the best definitions' bodies and their one-hop neighbourhood",
    description: "Everything you need to understand or change some code, in one call and within " +
      "token_budget (default 4000): for a query (an issue text, a question) or a list of " +
      "symbols, the bodies of the best matching definitions, then their neighbourhood: " +
      "signatures of the functions they call and the types they use, the call sites of their " +
      "callers and the imports they rely on. Each piece says why it is there and whether the " +
      "relation is exact (proven by scope, imports or module paths) or approximate (matched " +
      "by name). Use it instead of several search/definition/callers calls.",
    argument: "query",
    params: {
      ...common,
      query: {
        type: "string",
        description: "What the pack is for: an issue text, a question or an identifier",
      },
      symbols: {
        type: "string[]",
        description: "Definitions to pack, by name or qualified name (with or without a query)",
      },
    },
  }),
  verify: describe<Envelope<VerifyData>>()({
    name: "verify",
    resultType: "Envelope<VerifyData>",
    summary: "Checks citations (path, lines, symbol, quoted text, 'A calls B') against the index",
    description:
      "A citation guard: before you cite code in an answer, check each citation against the " +
      "index. Each citation gets a verdict: 'ok', or why not: 'file_unknown', " +
      "'range_outside_file', 'symbol_not_in_range' (with where the symbol is now), " +
      "'text_not_current' (the quoted text is not in those lines), 'relation_not_in_graph' " +
      "(the claimed call, import or inheritance is not in the relation graph). The answer's " +
      "data.score is the share of citations that hold. Fabricated or stale citations are what " +
      "it catches; pass refresh: true (the default of the CLI and MCP) to check the working tree.",
    argument: "citations",
    params: {
      repo: {
        type: "string",
        description:
          "The repository of citations that name none (default: the one that has the file)",
      },
      limit: common.limit,
      refresh: common.refresh,
      token_budget: common.token_budget,
      cursor: common.cursor,
      citations: {
        type: "object[]",
        required: true,
        max: LIMITS.records,
        description:
          "The citations: a list of {repo?, path, start_line?, end_line?, symbol?, text?, claim?}",
        fields: {
          repo: { type: "string", description: "The repository (default: the one with the file)" },
          path: { type: "string", required: true, description: "Repository-relative file path" },
          start_line: { type: "integer", min: 1, description: "First cited line (1-based)" },
          end_line: { type: "integer", min: 1, description: "Last cited line (inclusive)" },
          symbol: {
            type: "string",
            description: "A definition the lines belong to (name or qualified name)",
          },
          text: { type: "string", description: "Text quoted from those lines" },
          claim: {
            type: "string",
            description:
              "A relation: 'A calls B', 'A imports B', 'A inherits B', 'A implements B' or " +
              "'A references B'",
          },
        },
      },
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
    case "object[]": {
      if (!Array.isArray(value)) fail("must be a list of objects");
      const records = value as unknown[];
      const most = spec.max ?? LIMITS.records;
      if (records.length > most) {
        throw new WireError(
          "LimitExceeded",
          `'${method}' parameter '${field}' exceeds ${most} entries`,
        );
      }
      const fields = spec.fields ?? {};
      records.forEach((record, index) => {
        const name = `${field}[${index}]`;
        if (typeof record !== "object" || record === null || Array.isArray(record)) {
          throw new WireError("InvalidParams", `'${method}' parameter '${name}' must be an object`);
        }
        const entries = record as Record<string, unknown>;
        for (const [key, inner] of Object.entries(fields)) {
          const item = entries[key];
          if (item === undefined || item === null) {
            if (inner.required) {
              throw new WireError(
                "InvalidParams",
                `'${method}' parameter '${name}' needs '${key}'`,
              );
            }
            continue;
          }
          checkField(method, `${name}.${key}`, inner, item);
        }
        for (const key of Object.keys(entries)) {
          if (!(key in fields)) {
            throw new WireError(
              "InvalidParams",
              `'${method}' parameter '${name}' has no field '${key}'`,
            );
          }
        }
      });
      break;
    }
  }
}
