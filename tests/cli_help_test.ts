import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import {
  actionFlags,
  actionParams,
  QUERY_OPTIONS,
  queryParseOptions,
  UsageError,
} from "../src/cli/flags.ts";
import { mainUsage, queryUsage } from "../src/cli/help.ts";
import { type MethodDescriptor, METHODS } from "../src/protocol/methods.ts";
import { fixtureRepository, runCli, tempCache } from "./_helpers.ts";

const PROJECT_ROOT = new URL("../", import.meta.url).pathname;

/** The line of a help text that introduces an action, with its argument as the descriptor says. */
function actionLine(help: string, method: MethodDescriptor): string | undefined {
  const argument = method.argument;
  const shown = !argument
    ? ""
    : method.params[argument].required
    ? ` <${argument}>`
    : ` [${argument}]`;
  return help.split("\n").find((line) => line.startsWith(`  ${method.name}${shown} `));
}

/** Parses a command line the way `sextant query` does, into the action's params. */
function paramsOf(args: string[]): Record<string, unknown> {
  const flags = actionFlags();
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: queryParseOptions(flags),
  });
  const [action, ...rest] = positionals;
  return actionParams({ action, rest, values, flags });
}

Deno.test("help: every action appears with its argument and summary in both helps", () => {
  for (const help of [mainUsage(), queryUsage()]) {
    for (const method of Object.values(METHODS)) {
      const line = actionLine(help, method);
      assert.ok(line, `'${method.name}' is listed with its argument:\n${help}`);
      const words = method.summary.split(" ").slice(0, 4).join(" ");
      assert.ok(line.includes(words), `'${method.name}' shows its summary: ${line}`);
    }
  }
});

Deno.test("help: every param of every action has a flag, listed in the help", () => {
  const flags = actionFlags();
  const options = queryParseOptions(flags);
  const help = queryUsage(flags);
  for (const method of Object.values(METHODS)) {
    for (const [param, spec] of Object.entries(method.params)) {
      const flag = flags.find((candidate) => candidate.param === param);
      assert.ok(flag, `'${method.name}' param '${param}' has a flag`);
      assert.ok(flag.actions.includes(method.name));
      assert.ok(flag.flag in options, `--${flag.flag} is parsed`);
      assert.match(help, new RegExp(`^  --${flag.flag}\\b`, "m"), `--${flag.flag} is in the help`);
      const expected = spec.type === "boolean" ? "boolean" : "string";
      assert.equal(options[flag.flag].type, expected, `--${flag.flag} takes a ${expected}`);
      assert.equal(options[flag.flag].multiple === true, spec.type === "string[]");
    }
  }
  for (const option of QUERY_OPTIONS) {
    assert.match(help, new RegExp(`--${option.name}\\b`), `--${option.name} is in the help`);
  }
  assert.match(help, /--cache-dir DIR/);
  assert.match(help, /^ {2}--token-budget N /m);
  assert.match(help, /^ {2}--no-refresh /m);
  assert.match(help, /^ {2}--strategy hybrid\|lexical\|vector/m);
});

Deno.test("flags: names, whole numbers, repeatable lists, the refresh default", () => {
  assert.deepEqual(
    paramsOf([
      "search",
      "retry",
      "backoff",
      "--token-budget",
      "500",
      "--paths",
      "a/**",
      "--paths",
      "b/**",
    ]),
    { query: "retry backoff", paths: ["a/**", "b/**"], token_budget: 500, refresh: true },
  );
  assert.deepEqual(paramsOf(["callers", "f", "--depth", "2", "--no-refresh"]), {
    symbol: "f",
    depth: 2,
    refresh: false,
  });
  assert.deepEqual(paramsOf(["impact", "--diff", "--format", "mermaid"]), {
    diff: true,
    format: "mermaid",
    refresh: true,
  });
  // status, refresh and rebuild take no refresh param: the flag adds nothing.
  assert.deepEqual(paramsOf(["status", "--no-refresh"]), {});
  assert.deepEqual(paramsOf(["symbols", "--query", "parseConfig"]), {
    query: "parseConfig",
    refresh: true,
  });
  // A flag the action does not take is passed on, for the action to refuse by name.
  assert.deepEqual(paramsOf(["status", "--depth", "3"]), { depth: 3 });
  assert.throws(
    () => paramsOf(["search", "x", "--limit", "2.5"]),
    /--limit must be a whole number/,
  );
  assert.throws(() => paramsOf(["search", "x", "--timeout-ms", "soon"]), UsageError);
  assert.throws(() => paramsOf(["search"]), /'search' needs an argument/);
  assert.throws(() => paramsOf(["status", "now"]), /'status' takes no argument/);
  assert.throws(() => paramsOf(["search", "x", "--query", "y"]), /got its query twice/);
});

Deno.test("flags: a list argument takes each word; conflicting param types are refused", () => {
  const methods: Record<string, MethodDescriptor> = {
    verify: {
      ...METHODS.status,
      name: "status",
      argument: "citations",
      params: { citations: { type: "string[]", required: true, description: "Citations" } },
    },
  };
  const flags = actionFlags(methods);
  assert.equal(flags[0].flag, "citations");
  assert.deepEqual(
    actionParams({ action: "verify", rest: ["a.ts:1", "b.ts:2"], values: {}, flags, methods }),
    { citations: ["a.ts:1", "b.ts:2"] },
  );
  const clash: Record<string, MethodDescriptor> = {
    ...methods,
    other: {
      ...METHODS.status,
      params: { citations: { type: "string", description: "One citation" } },
    },
  };
  assert.throws(() => actionFlags(clash), /it is string\[\] and string/);
});

Deno.test("help: README names every action", () => {
  const readme = Deno.readTextFileSync(`${PROJECT_ROOT}README.md`);
  const listed = /^Actions: ([^.]+)\./m.exec(readme)?.[1] ?? "";
  for (const name of Object.keys(METHODS)) {
    assert.ok(listed.includes(`\`${name}\``), `README's action list names '${name}'`);
  }
});

Deno.test("CLI (real process): --help of sextant and of query; flags reach the action", async () => {
  const main = await runCli(["--help"]);
  assert.equal(main.code, 0);
  assert.equal(main.stdout.trim(), mainUsage());
  const query = await runCli(["query", "--help"]);
  assert.equal(query.code, 0);
  assert.equal(query.stdout.trim(), queryUsage());
  const root = fixtureRepository({
    "src/retry.py": "def retry_with_backoff(call):\n    return call()\n",
    "lib/retry.py": "def retry_again(call):\n    return call()\n",
  });
  const cache = tempCache();
  const out = await runCli(
    ["query", "--embedded", "--cache-dir", cache, "--json", "search", "retry", "--paths", "lib/**"],
    { cwd: root },
  );
  assert.equal(out.code, 0, out.stderr);
  const paths = JSON.parse(out.stdout).results.map((hit: { path: string }) => hit.path);
  assert.deepEqual([...new Set(paths)], ["lib/retry.py"]);
  assert.ok([...Deno.readDirSync(cache)].length > 0, "--cache-dir holds the target");
});
