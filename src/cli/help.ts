/**
 * The help of `sextant` and `sextant query`, written from the method
 * descriptors and the flag table: every action with its argument and summary,
 * every flag with its value and meaning, so the help cannot fall behind the
 * actions.
 */
import { METHODS } from "../protocol/methods.ts";
import { type ActionFlag, actionFlags, QUERY_OPTIONS } from "./flags.ts";

const WIDTH = 100;

/** `sextant --help`. */
export function mainUsage(): string {
  return `usage: sextant <command> [args]

commands:
  query <action> [args]   run one action ('sextant query --help': every action and flag)
  <action> [args]         shorthand for 'query <action>'
  daemon [flags]          the Unix-socket JSON-RPC daemon (docs/protocol.md)
  mcp [flags]             MCP server over stdio, one tool per action (docs/mcp.md)

actions:
${actionLines()}`;
}

/** One line of usage, for a mistake on the command line. */
export const QUERY_SYNOPSIS =
  "usage: sextant query [options] <action> [argument] [flags]  ('sextant query --help' for more)";

/** `sextant query --help`. */
export function queryUsage(flags: ActionFlag[] = actionFlags()): string {
  const actionCount = Object.keys(METHODS).length;
  const flagRows = flags.map((flag): [string, string] => [
    `--${flag.flag}${flag.placeholder ? ` ${flag.placeholder}` : ""}`,
    `${flag.description}${flag.type === "string[]" ? " (repeatable)" : ""}${
      appliesTo(flag.actions, actionCount)
    }`,
  ]);
  const optionRows = QUERY_OPTIONS.map((option): [string, string] => [
    `${option.short ? `-${option.short}, ` : ""}--${option.name}${
      option.placeholder ? ` ${option.placeholder}` : ""
    }`,
    option.description,
  ]);
  return `usage: sextant query [options] <action> [argument] [flags]
       sextant <action> [argument] [flags]

actions:
${actionLines()}

flags (each becomes the action's param of the same name, '-' for '_'):
${columns(flagRows)}

options:
${columns(optionRows)}

exit: 0 found (verify: every citation holds), 1 nothing found, 2 error`;
}

/** Every action with its argument (<required> or [optional]) and its one-line summary. */
function actionLines(): string {
  return columns(
    Object.values(METHODS).map((method) => {
      const argument = method.argument;
      const required = argument ? method.params[argument]?.required : false;
      const shown = argument ? (required ? ` <${argument}>` : ` [${argument}]`) : "";
      return [`${method.name}${shown}`, method.summary];
    }),
  );
}

/** Which actions take a flag, when not all of them: the shorter of the list and its complement. */
function appliesTo(actions: string[], total: number): string {
  if (actions.length === total) return "";
  const others = Object.keys(METHODS).filter((name) => !actions.includes(name));
  return others.length < actions.length
    ? ` [all but ${others.join(", ")}]`
    : ` [${actions.join(", ")}]`;
}

/** Two columns, the second wrapped to the width and indented under itself. */
function columns(rows: [string, string][]): string {
  const left = Math.min(30, Math.max(...rows.map(([name]) => name.length)) + 2);
  const room = WIDTH - left - 2;
  return rows.map(([name, text]) => {
    const lines = wrap(text, room);
    const first = name.length + 2 > left
      ? [`  ${name}`, `  ${" ".repeat(left)}${lines[0]}`]
      : [`  ${name.padEnd(left)}${lines[0]}`];
    return [...first, ...lines.slice(1).map((line) => `  ${" ".repeat(left)}${line}`)].join("\n");
  }).join("\n");
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  lines.push(line);
  return lines;
}
