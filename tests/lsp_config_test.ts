/** The `lsp:` section, safe launch plans, and the pure location helpers (no server runs). */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseLspConfig, serverForLanguage } from "../src/lsp/config.ts";
import { launchPlan } from "../src/lsp/safety.ts";
import { lineMapping } from "../src/lsp/line_map.ts";
import {
  identifierAt,
  repositoryRelativePath,
  snippetLines,
  symbolKindName,
} from "../src/lsp/locations.ts";
import { languageIdOf } from "../src/lsp/language_ids.ts";
import { writeExecutable } from "./lsp_fixture.ts";
import { tempDirectory } from "./_helpers.ts";

const SOURCE = "sextant.yml";

Deno.test("lsp config: defaults, families and explicit values", () => {
  const config = parseLspConfig({
    python: { command: ["pyright-langserver", "--stdio"] },
    typescript: {
      command: ["typescript-language-server", "--stdio"],
      initialization_options: { tsserver: { path: "/opt/ts/lib/tsserver.js" } },
      settings: { typescript: { format: {} } },
      env: { NODE_OPTIONS_EXTRA: "1" },
      request_timeout_ms: 2_500,
      idle_shutdown_ms: 60_000,
    },
  }, SOURCE);
  const python = config.get("python")!;
  assert.deepEqual(python.languages, ["python"]);
  assert.equal(python.requestTimeoutMs, 10_000);
  assert.equal(python.idleShutdownMs, 600_000);
  const typescript = config.get("typescript")!;
  assert.deepEqual(typescript.languages, ["typescript", "tsx", "javascript"]);
  assert.equal(typescript.requestTimeoutMs, 2_500);
  assert.deepEqual(typescript.env, { NODE_OPTIONS_EXTRA: "1" });
  assert.equal(serverForLanguage(config, "tsx")?.key, "typescript");
  assert.equal(serverForLanguage(config, "javascript")?.key, "typescript");
  assert.equal(serverForLanguage(config, "go"), null);
  assert.equal(parseLspConfig(undefined, SOURCE).size, 0);
  assert.equal(parseLspConfig(null, SOURCE).size, 0);
});

Deno.test("lsp config: each bad value is an error naming its key", () => {
  const cases: [unknown, string][] = [
    [["python"], "lsp is not a mapping of language names to servers"],
    [{ python: "pyright" }, "lsp.python is not a mapping"],
    [
      { python: { command: "pyright-langserver --stdio" } },
      "lsp.python.command is not a list of strings",
    ],
    [{ python: { command: [] } }, "lsp.python.command is not a list of strings"],
    [{ python: { command: ["x", 3] } }, "lsp.python.command is not a list of strings"],
    [{ python: {} }, "lsp.python.command is not a list of strings"],
    [{ python: { command: ["x"], comand: ["y"] } }, "lsp.python.comand is not a known key"],
    [{ python: { command: ["x"], env: { A: 1 } } }, "lsp.python.env.A is not a string"],
    [
      { python: { command: ["x"], env: { "A-B": "1" } } },
      "lsp.python.env.A-B is not an environment variable name",
    ],
    [
      { python: { command: ["x"], initialization_options: [] } },
      "lsp.python.initialization_options is not a mapping",
    ],
    [
      { python: { command: ["x"], request_timeout_ms: 5 } },
      "lsp.python.request_timeout_ms is not a whole number of milliseconds",
    ],
    [
      { python: { command: ["x"], idle_shutdown_ms: "1h" } },
      "lsp.python.idle_shutdown_ms is not a whole number",
    ],
    [
      { python: { command: ["x"], languages: "python" } },
      "lsp.python.languages is not a list of strings",
    ],
    [{ "Py thon": { command: ["x"] } }, "lsp.Py thon is not a language name"],
  ];
  for (const [raw, message] of cases) {
    assert.throws(
      () => parseLspConfig(raw, SOURCE),
      (error: Error) =>
        error instanceof SyntaxError &&
        error.message.startsWith(`Cannot parse workspace config ${SOURCE}: ${message}`),
      message,
    );
  }
});

Deno.test("launch plan: minimal environment, filtered PATH, configured env", () => {
  const bin = tempDirectory({ prefix: "sextant-lsp-bin-" });
  const repo = Deno.realPathSync(tempDirectory({ prefix: "sextant-lsp-repo-" }));
  Deno.mkdirSync(join(repo, "bin"));
  writeExecutable(bin, "some-server", "#!/bin/sh\nexit 1\n");
  const plan = launchPlan(
    parseLspConfig({ lua: { command: ["some-server", "--stdio"], env: { EXTRA: "yes" } } }, SOURCE)
      .get("lua")!,
    {
      repositoryRoots: [repo],
      hostEnv: {
        PATH: `${join(repo, "bin")}:relative/bin::${bin}:/usr/bin`,
        HOME: "/home/someone",
        AWS_SECRET_ACCESS_KEY: "secret",
        NODE_OPTIONS: "--require ./x.js",
      },
    },
  );
  assert.equal(plan.executable, join(bin, "some-server"));
  assert.deepEqual(plan.args, ["--stdio"]);
  assert.deepEqual(plan.env, { PATH: `${bin}:/usr/bin`, HOME: "/home/someone", EXTRA: "yes" });
  assert.equal(plan.profile, "generic");
  assert.match(plan.notes[0], /no safety profile for 'some-server'/);
});

Deno.test("launch plan: the safe settings of rust-analyzer, gopls, clangd and pyright win over configuration", () => {
  const bin = tempDirectory({ prefix: "sextant-lsp-bin-" });
  const repo = Deno.realPathSync(tempDirectory({ prefix: "sextant-lsp-repo-" }));
  for (const name of ["rust-analyzer", "gopls", "clangd", "pyright-langserver"]) {
    writeExecutable(bin, name, "#!/bin/sh\nexit 1\n");
  }
  const plan = (key: string, entry: Record<string, unknown>) =>
    launchPlan(parseLspConfig({ [key]: entry }, SOURCE).get(key)!, {
      repositoryRoots: [repo],
      hostEnv: { PATH: bin },
    });

  const rust = plan("rust", {
    command: ["rust-analyzer"],
    initialization_options: { cargo: { buildScripts: { enable: true }, features: "all" } },
  });
  assert.equal(rust.profile, "rust-analyzer");
  assert.deepEqual(rust.initializationOptions.cargo, {
    buildScripts: { enable: false },
    features: "all",
    extraEnv: { CARGO_NET_OFFLINE: "true" },
  });
  assert.deepEqual(rust.initializationOptions.procMacro, { enable: false });
  assert.equal(rust.initializationOptions.checkOnSave, false);
  assert.equal(rust.env.RUSTC_WRAPPER, "");
  assert.equal(rust.env.CARGO_NET_OFFLINE, "true");

  const go = plan("go", { command: ["gopls"], env: { GOPROXY: "https://proxy.example" } });
  assert.equal(go.profile, "gopls");
  assert.equal(go.env.GOPROXY, "off");
  assert.equal(go.env.GOFLAGS, "-mod=readonly");
  assert.equal(go.env.GOTOOLCHAIN, "local");

  const c = plan("c", { command: ["clangd"] });
  assert.deepEqual(c.args, ["--background-index=false"]);
  assert.throws(
    () => plan("c", { command: ["clangd", "--query-driver=/usr/bin/*"] }),
    /lsp\.c: --query-driver is refused/,
  );

  const python = plan("python", { command: ["pyright-langserver", "--stdio"] });
  assert.equal(python.profile, "pyright");
  assert.ok(python.readyLog?.test("Found 12 source files"));
  assert.throws(
    () =>
      plan("python", {
        command: ["pyright-langserver", "--stdio"],
        settings: { python: { pythonPath: join(repo, ".venv/bin/python") } },
      }),
    /lsp\.python\.settings\.python\.pythonPath: .* lies inside the repository/,
  );
});

Deno.test("launch plan: typescript-language-server needs a tsserver.js outside the repositories", () => {
  const bin = tempDirectory({ prefix: "sextant-lsp-bin-" });
  const repo = Deno.realPathSync(tempDirectory({ prefix: "sextant-lsp-repo-" }));
  writeExecutable(bin, "typescript-language-server", "#!/bin/sh\nexit 1\n");
  const typescript = join(repo, "node_modules/typescript");
  Deno.mkdirSync(join(typescript, "lib"), { recursive: true });
  Deno.writeTextFileSync(join(typescript, "package.json"), "{}");
  Deno.writeTextFileSync(join(typescript, "lib/tsserver.js"), "");
  const plan = (options: Record<string, unknown>) =>
    launchPlan(
      parseLspConfig({
        typescript: { command: ["typescript-language-server", "--stdio"], ...options },
      }, SOURCE).get("typescript")!,
      { repositoryRoots: [repo], hostEnv: { PATH: bin } },
    );
  assert.throws(
    () =>
      plan({ initialization_options: { tsserver: { path: join(typescript, "lib/tsserver.js") } } }),
    /tsserver\.path: .* lies inside the repository/,
  );
  assert.throws(
    () => plan({ initialization_options: { tsserver: { path: "/nowhere/tsserver.js" } } }),
    /is not a TypeScript tsserver\.js/,
  );
  const outside = tempDirectory({ prefix: "sextant-ts-" });
  Deno.mkdirSync(join(outside, "lib"));
  Deno.writeTextFileSync(join(outside, "package.json"), "{}");
  Deno.writeTextFileSync(join(outside, "lib/tsserver.js"), "");
  const good = plan({
    initialization_options: { tsserver: { path: outside }, plugins: [{ name: "x" }] },
  });
  const real = Deno.realPathSync(join(outside, "lib/tsserver.js"));
  assert.deepEqual(good.initializationOptions, {
    tsserver: { path: real, fallbackPath: real, logVerbosity: "off", useSyntaxServer: "never" },
    plugins: [],
    disableAutomaticTypingAcquisition: true,
  });
});

Deno.test("line mapping carries working-tree lines onto the committed text", () => {
  const committed = "a\nb\nc\nd\ne\n";
  const inserted = lineMapping("x\ny\na\nb\nc\nd\ne\n", committed);
  assert.deepEqual([...inserted].slice(1), [0, 0, 1, 2, 3, 4, 5, 6]);
  const changed = lineMapping("a\nB\nc\nd\ne\n", committed);
  assert.deepEqual([...changed].slice(1), [1, 0, 3, 4, 5, 6]);
  const removed = lineMapping("a\nd\ne\n", committed);
  assert.deepEqual([...removed].slice(1), [1, 4, 5, 6]);
  const moved = lineMapping("c\nq\na\nb\ne\n", committed);
  assert.equal(moved[5], 5);
  assert.equal(moved[2], 0);
  assert.deepEqual([...lineMapping(committed, committed)].slice(1), [1, 2, 3, 4, 5, 6]);
});

Deno.test("location helpers: URIs, names, snippets, kinds, language ids", () => {
  assert.equal(repositoryRelativePath("file:///r/app/src/a%20b.ts", ["/r/app"]), "src/a b.ts");
  assert.equal(repositoryRelativePath("file:///r/application/x.ts", ["/r/app"]), null);
  assert.equal(repositoryRelativePath("file:///usr/lib/typeshed/builtins.pyi", ["/r/app"]), null);
  assert.equal(repositoryRelativePath("untitled:1", ["/r/app"]), null);
  assert.equal(repositoryRelativePath("file:///real/app/x.py", ["/r/app", "/real/app"]), "x.py");
  const text = "def helper(x):\n    return $value_2 + x\n";
  assert.equal(identifierAt(text, { line: 0, character: 6 }), "helper");
  assert.equal(identifierAt(text, { line: 1, character: 12 }), "$value_2");
  assert.equal(identifierAt(text, { line: 1, character: 4 }), "return");
  assert.equal(identifierAt(text, { line: 7, character: 0 }), null);
  assert.equal(snippetLines("1\n2\n3\n4\n", 2, 9, 2), "2\n3");
  assert.equal(symbolKindName(12), "function");
  assert.equal(symbolKindName(5), "class");
  assert.equal(symbolKindName(99), "symbol");
  assert.equal(languageIdOf("src/App.tsx", "tsx"), "typescriptreact");
  assert.equal(languageIdOf("Makefile", "make"), "make");
});
