/**
 * MCP tools generated from the method descriptors, so the CLI, the socket and
 * MCP validate the same params: one tool per action, named as the action.
 */
import type { Tool } from "./sdk.ts";
import { type FieldSpec, LIMITS, type MethodDescriptor, METHODS } from "../protocol/methods.ts";

/** A JSON Schema (draft 2020-12) of the subset the descriptors use. */
export interface JsonSchema {
  type: "object" | "string" | "integer" | "boolean" | "array";
  description?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  maxItems?: number;
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
}

/**
 * Actions that change the index rather than read it; every other action only
 * reads (a `refresh: true` param brings the index up to date, never the files).
 */
const INDEX_WRITERS: Record<string, { destructive: boolean }> = {
  refresh: { destructive: false },
  rebuild: { destructive: true },
};

/** The tool of an action's descriptor. */
export function toolOf(descriptor: MethodDescriptor): Tool {
  const writer = INDEX_WRITERS[descriptor.name];
  return {
    name: descriptor.name,
    title: descriptor.summary,
    description: descriptor.description,
    inputSchema: inputSchemaOf(descriptor) as Tool["inputSchema"],
    annotations: {
      title: descriptor.summary,
      readOnlyHint: !writer,
      ...(writer ? { destructiveHint: writer.destructive, idempotentHint: true } : {}),
      openWorldHint: false,
    },
  };
}

/** The tools of the actions a caller may use, in the descriptors' order. */
export function toolsFor(allowedActions: Iterable<string>): Tool[] {
  const allowed = new Set(allowedActions);
  return Object.values(METHODS).filter((descriptor) => allowed.has(descriptor.name)).map(toolOf);
}

/**
 * The input schema of an action: every param with its type, enum, bounds and
 * description; the CLI's positional argument first; nothing else accepted.
 */
export function inputSchemaOf(descriptor: MethodDescriptor): JsonSchema {
  const names = Object.keys(descriptor.params);
  const argument = descriptor.argument;
  if (argument && names.includes(argument)) {
    names.splice(names.indexOf(argument), 1);
    names.unshift(argument);
  }
  const properties: Record<string, JsonSchema> = {};
  for (const name of names) {
    properties[name] = fieldSchema(descriptor.params[name]);
    const callerDefault = descriptor.params[name].callerDefault;
    if (callerDefault !== undefined) properties[name].default = callerDefault;
  }
  const required = names.filter((name) => descriptor.params[name].required);
  return {
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/**
 * The params a tool call runs with: the arguments plus the front door's defaults (like the CLI,
 * a read tool brings the index up to date first unless told `refresh: false`: agents edit files
 * between calls).
 */
export function withDefaults(
  action: string,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const descriptor = METHODS[action];
  const callerDefault = descriptor?.params.refresh?.callerDefault;
  if (callerDefault === undefined) return args;
  if (args.refresh !== undefined && args.refresh !== null) return args;
  return { ...args, refresh: callerDefault };
}

function fieldSchema(spec: FieldSpec): JsonSchema {
  const schema: JsonSchema = spec.type === "string[]"
    ? { type: "array", items: { type: "string" }, maxItems: LIMITS.paths }
    : spec.type === "object[]"
    ? {
      type: "array",
      items: recordSchema(spec.fields ?? {}),
      maxItems: spec.max ?? LIMITS.records,
    }
    : { type: spec.type };
  if (spec.oneOf) schema.enum = [...spec.oneOf];
  if (spec.min !== undefined) schema.minimum = spec.min;
  if (spec.max !== undefined && spec.type !== "object[]") schema.maximum = spec.max;
  schema.description = spec.description;
  return schema;
}

/** The schema of one record of an `object[]` param: its fields, the required ones, nothing else. */
function recordSchema(fields: Readonly<Record<string, FieldSpec>>): JsonSchema {
  const names = Object.keys(fields);
  const required = names.filter((name) => fields[name].required);
  return {
    type: "object",
    properties: Object.fromEntries(names.map((name) => [name, fieldSchema(fields[name])])),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}
