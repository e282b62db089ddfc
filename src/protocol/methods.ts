/**
 * Every action's descriptor in one place: its name and the shape of its
 * params, validated at the boundary before any backend runs.
 */
import { WireError } from "./errors.ts";
import type { ActionName } from "./types.ts";

type FieldType = "string" | "integer" | "boolean" | "string[]";

interface FieldSpec {
  type: FieldType;
  required?: boolean;
  oneOf?: readonly string[];
  min?: number;
  max?: number;
}

export interface MethodDescriptor {
  name: ActionName;
  summary: string;
  params: Record<string, FieldSpec>;
}

/** Input limits (SPEC §14). */
export const LIMITS = { limit: 1000, queryBytes: 100_000, paths: 64, depth: 1000 };

/** A traversal depth: actions clamp deeper requests to what they serve; beyond this it is an error. */
const depthField: FieldSpec = { type: "integer", min: 1, max: LIMITS.depth };

const common: Record<string, FieldSpec> = {
  repo: { type: "string" },
  paths: { type: "string[]" },
  language: { type: "string" },
  limit: { type: "integer", min: 1, max: LIMITS.limit },
  refresh: { type: "boolean" },
  token_budget: { type: "integer", min: 1, max: 1_000_000 },
  cursor: { type: "string" },
};

/** How navigation actions name their subject: a symbol, or the use at path + line + column. */
const navigationTarget: Record<string, FieldSpec> = {
  symbol: { type: "string" },
  path: { type: "string" },
  line: { type: "integer", min: 1 },
  column: { type: "integer", min: 1 },
};

export const METHODS: Record<string, MethodDescriptor> = {
  search: {
    name: "search",
    summary: "Ranked code chunks for natural language, an identifier or a source phrase",
    params: {
      ...common,
      query: { type: "string", required: true },
      strategy: { type: "string", oneOf: ["hybrid", "lexical", "vector"] },
      kind: { type: "string", oneOf: ["local", "dependency", "doc", "all"] },
    },
  },
  symbols: {
    name: "symbols",
    summary: "Symbol definitions by name, qualified name or prefix",
    params: { ...common, query: { type: "string", required: true }, kind: { type: "string" } },
  },
  grep: {
    name: "grep",
    summary: "Structural matches of a by-example code pattern with metavariables",
    params: {
      ...common,
      pattern: { type: "string", required: true },
      timeout_ms: { type: "integer", min: 1, max: 600_000 },
    },
  },
  definition: {
    name: "definition",
    summary: "Where a symbol (name, qualified name, or the use at path:line:column) is defined",
    params: { ...common, ...navigationTarget },
  },
  references: {
    name: "references",
    summary: "Incoming structural relationships of a symbol",
    params: { ...common, ...navigationTarget },
  },
  callers: {
    name: "callers",
    summary: "Incoming calls of a symbol, transitively up to depth",
    params: { ...common, ...navigationTarget, depth: depthField },
  },
  callees: {
    name: "callees",
    summary: "Outgoing calls of a symbol, transitively up to depth",
    params: { ...common, ...navigationTarget, depth: depthField },
  },
  impact: {
    name: "impact",
    summary: "Transitive inbound relationships of a symbol, a path or the uncommitted diff",
    params: {
      ...common,
      ...navigationTarget,
      diff: { type: "boolean" },
      depth: depthField,
      format: { type: "string", oneOf: ["list", "mermaid"] },
    },
  },
  neighborhood: {
    name: "neighborhood",
    summary: "Bounded bidirectional relationships around a symbol",
    params: {
      ...common,
      ...navigationTarget,
      depth: depthField,
      format: { type: "string", oneOf: ["list", "mermaid"] },
    },
  },
  status: {
    name: "status",
    summary: "Per-repository generation, HEAD, files, languages, errors and limitations",
    params: { repo: { type: "string" } },
  },
  refresh: {
    name: "refresh",
    summary: "Reconcile repositories with their working trees now",
    params: { repo: { type: "string" } },
  },
  rebuild: {
    name: "rebuild",
    summary: "Drop a repository's target and index it again",
    params: { repo: { type: "string" } },
  },
};

/** Validates params against a method's descriptor; throws `InvalidParams` naming the field. */
export function validateParams(method: string, params: unknown): Record<string, unknown> {
  const descriptor = METHODS[method];
  if (!descriptor) throw new WireError("MethodNotFound", `Unknown action '${method}'`);
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
