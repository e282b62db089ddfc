/**
 * The flags of `sextant query`, derived from the method descriptors: each
 * param becomes a flag (`token_budget` → `--token-budget`), parsed by its type
 * (integer → a whole number, string[] → repeatable, boolean → a switch), so a
 * param added to a descriptor is a flag, and in the help, without an edit
 * here. The options of the command itself (where the workspace is, how to
 * reach the daemon, how to print) are listed beside them.
 */
import { type FieldSpec, type MethodDescriptor, METHODS } from "../protocol/methods.ts";

/** A flag of the command itself, not of an action. */
export interface CommandOption {
  name: string;
  type: "string" | "boolean";
  /** The value's name in the help (strings only). */
  placeholder?: string;
  short?: string;
  description: string;
}

/** The command's own options, in the order the help lists them. */
export const QUERY_OPTIONS: readonly CommandOption[] = [
  {
    name: "workspace",
    type: "string",
    placeholder: "DIR",
    description: "The workspace (default: the current directory)",
  },
  {
    name: "config",
    type: "string",
    placeholder: "FILE",
    description: "The workspace's sextant.yml (default: found from the workspace)",
  },
  {
    name: "cache-dir",
    type: "string",
    placeholder: "DIR",
    description: "Where targets live (default: $SEXTANT_CACHE_DIR, else the user cache)",
  },
  { name: "json", type: "boolean", description: "Print the whole JSON envelope" },
  {
    name: "socket",
    type: "string",
    placeholder: "PATH",
    description: "The daemon's socket (default: as `sextant daemon` resolves it)",
  },
  {
    name: "agent",
    type: "string",
    placeholder: "NAME",
    description: "Ask as this agent (default: $SEXTANT_AGENT; none: the local user)",
  },
  {
    name: "token",
    type: "string",
    placeholder: "TOKEN",
    description: "The agent's token (default: $SEXTANT_TOKEN)",
  },
  { name: "embedded", type: "boolean", description: "Answer in this process; never ask a daemon" },
  { name: "help", type: "boolean", short: "h", description: "Print this help" },
];

/** Names for a flag's value in the help; any other param is named by its type. */
const PLACEHOLDERS: Record<string, string> = {
  repo: "NAME",
  paths: "GLOB",
  language: "LANG",
  cursor: "CURSOR",
  query: "TEXT",
  pattern: "PATTERN",
  symbol: "NAME",
  path: "PATH",
  kind: "KIND",
  focus: "TEXT",
  symbols: "NAME",
  citations: "JSON|-",
};

/** One param of one or more actions, as a flag. */
export interface ActionFlag {
  /** Without the dashes: `token-budget`, `no-refresh`. */
  flag: string;
  param: string;
  type: FieldSpec["type"];
  /** A switch that sets the param false (the CLI defaults it to true). */
  negated: boolean;
  /** The value's name in the help; empty for a switch. */
  placeholder: string;
  /** What the value means (the description most actions share). */
  description: string;
  /** The actions that take it, in descriptor order. */
  actions: string[];
}

/** Every param of every method as a flag; throws when two methods give one param two types. */
export function actionFlags(
  methods: Record<string, MethodDescriptor> = METHODS,
): ActionFlag[] {
  const byParam = new Map<string, { action: string; spec: FieldSpec }[]>();
  for (const method of Object.values(methods)) {
    for (const [param, spec] of Object.entries(method.params)) {
      const uses = byParam.get(param) ?? [];
      if (uses.length > 0 && uses[0].spec.type !== spec.type) {
        throw new TypeError(
          `Cannot make a flag of '${param}': it is ${uses[0].spec.type} and ${spec.type}`,
        );
      }
      uses.push({ action: method.name, spec });
      byParam.set(param, uses);
    }
  }
  return [...byParam].map(([param, uses]) => {
    const type = uses[0].spec.type;
    // A switch some action turns on by default is spelled as its negation (`--no-refresh`).
    const negated = type === "boolean" && uses.some((use) => use.spec.callerDefault === true);
    const name = param.replaceAll("_", "-");
    const value = type === "boolean" ? "" : placeholder(param, uses.map((use) => use.spec));
    const description = describe(uses, { choicesShown: value.includes("|") });
    return {
      flag: negated ? `no-${name}` : name,
      param,
      type,
      negated,
      placeholder: value,
      description: negated
        ? `Skip what the CLI does by default: ${lowerFirst(description)}`
        : description,
      actions: uses.map((use) => use.action),
    };
  });
}

/** A misuse of the command line; the message is for a person. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The `parseArgs` options of `sextant query`: its own options and every action flag. */
export function queryParseOptions(
  flags: ActionFlag[],
): Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }> {
  const options: Record<
    string,
    { type: "string" | "boolean"; multiple?: boolean; short?: string }
  > = {};
  for (const option of QUERY_OPTIONS) {
    options[option.name] = { type: option.type, ...(option.short ? { short: option.short } : {}) };
  }
  for (const flag of flags) {
    if (flag.flag in options) {
      throw new TypeError(`Cannot make a flag of '${flag.param}': --${flag.flag} is taken`);
    }
    options[flag.flag] = flag.type === "boolean"
      ? { type: "boolean" }
      : { type: "string", ...(flag.type === "string[]" ? { multiple: true } : {}) };
  }
  return options;
}

/**
 * The params of one action from its positional argument and the flags given.
 * Flags an action does not take are passed on, so the action refuses them by
 * name; throws `UsageError` for a value that cannot be a param.
 */
export function actionParams(options: {
  action: string;
  rest: string[];
  values: Record<string, unknown>;
  flags: ActionFlag[];
  methods?: Record<string, MethodDescriptor>;
  /** What standard input held, for a JSON value given as `-`. */
  stdin?: string;
}): Record<string, unknown> {
  const { action, rest, values, flags, methods = METHODS, stdin } = options;
  const method = Object.hasOwn(methods, action) ? methods[action] : undefined;
  const given: Record<string, unknown> = {};
  for (const flag of flags) {
    const raw = values[flag.flag];
    if (flag.negated) {
      if (method?.params[flag.param]?.callerDefault === true) given[flag.param] = raw !== true;
      continue;
    }
    // An empty value is no value, as it always was on this command line.
    if (raw === undefined || raw === false || raw === "") continue;
    given[flag.param] = flagValue(flag, raw, stdin);
  }
  const argument = method?.argument;
  if (!argument) {
    if (rest.length > 0) {
      throw new UsageError(`'${action}' takes no argument (got '${rest.join(" ")}')`);
    }
    return given;
  }
  if (rest.length === 0) {
    if (method.params[argument]?.required && !(argument in given)) {
      throw new UsageError(`'${action}' needs an argument`);
    }
    return given;
  }
  if (argument in given) {
    throw new UsageError(
      `'${action}' got its ${argument} twice: as the argument and as --${argument}`,
    );
  }
  const type = method.params[argument]?.type;
  const value = type === "string[]"
    ? rest
    : type === "object[]"
    ? records(rest.join(" "), `the ${argument} argument`, stdin)
    : rest.join(" ");
  return { [argument]: value, ...given };
}

/** Whether an action's positional argument (or a flag) reads `-` from standard input. */
export function readsStdin(
  action: string,
  rest: string[],
  values: Record<string, unknown>,
  methods: Record<string, MethodDescriptor> = METHODS,
): boolean {
  const method = Object.hasOwn(methods, action) ? methods[action] : undefined;
  if (!method) return false;
  return Object.entries(method.params).some(([param, spec]) =>
    spec.type === "object[]" &&
    ((method.argument === param && rest.length === 1 && rest[0] === "-") ||
      values[param.replaceAll("_", "-")] === "-")
  );
}

/** A JSON list of records (one record is a list of one); `-` is standard input. */
function records(text: string, what: string, stdin?: string): Record<string, unknown>[] {
  const source = text.trim() === "-" ? stdin ?? "" : text;
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new UsageError(
      `Cannot read ${what} as JSON${text.trim() === "-" ? " from standard input" : ""}: ${
        (error as Error).message
      }`,
    );
  }
  const list = Array.isArray(value) ? value : [value];
  if (list.some((item) => typeof item !== "object" || item === null || Array.isArray(item))) {
    throw new UsageError(`${what} must be a JSON array of objects`);
  }
  return list as Record<string, unknown>[];
}

function flagValue(flag: ActionFlag, raw: unknown, stdin?: string): unknown {
  if (flag.type === "object[]") return records(String(raw), `--${flag.flag}`, stdin);
  if (flag.type !== "integer") return raw;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new UsageError(`--${flag.flag} must be a whole number`);
  return value;
}

function placeholder(param: string, specs: FieldSpec[]): string {
  const choices = specs[0].oneOf;
  const same = choices && specs.every((spec) => spec.oneOf?.join("|") === choices.join("|"));
  if (same) return choices.join("|");
  if (PLACEHOLDERS[param]) return PLACEHOLDERS[param];
  return specs[0].type === "integer" ? "N" : param.toUpperCase();
}

/**
 * What a flag means: the description most of its actions share, then any
 * other one prefixed with the actions it belongs to; allowed values follow a
 * description unless the placeholder already shows them.
 */
function describe(
  uses: { action: string; spec: FieldSpec }[],
  options: { choicesShown: boolean },
): string {
  const groups = new Map<string, string[]>();
  for (const { action, spec } of uses) {
    const choices = spec.oneOf && !options.choicesShown ? ` (${spec.oneOf.join("|")})` : "";
    const text = spec.description + choices;
    groups.set(text, [...(groups.get(text) ?? []), action]);
  }
  const ordered = [...groups].sort((a, b) => b[1].length - a[1].length);
  // The first goes unnamed only when more actions share it than any other.
  const leads = ordered.length === 1 || ordered[0][1].length > ordered[1][1].length;
  return ordered.map(([text, actions], i) =>
    i === 0 && leads ? text : `${actions.join(", ")}: ${text}`
  ).join("; ");
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
