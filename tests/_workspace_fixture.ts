/**
 * A multi-repository fixture workspace for navigation tests: a TS package used
 * by a TS app, a Python library used by a Python service, a Go module used by
 * another, and an unrelated TS repository that defines the same names. Each
 * repository is its own git work tree; `sextant.yml` groups the siblings.
 */
import { join } from "node:path";
import { git, tempDirectory, writeFiles } from "./_helpers.ts";

export const UI: Record<string, string> = {
  "package.json": JSON.stringify({
    name: "@acme/ui",
    main: "dist/index.js",
    types: "dist/index.d.ts",
  }),
  "src/index.ts": `export { formatDate } from "./format";
export { Button } from "./button";
`,
  "src/format.ts": `export function formatDate(d: Date): string {
  return pad(d.getDate());
}

function pad(n: number): string {
  return String(n);
}
`,
  "src/button.ts": `export class Button {
  render(): string {
    return this.label();
  }

  label(): string {
    return "button";
  }

  constructor() {}
}
`,
  "src/legacy.ts": `function legacyFormat(): string {
  return "legacy";
}
`,
};

export const APP: Record<string, string> = {
  "package.json": JSON.stringify({ name: "app", dependencies: { "@acme/ui": "*" } }),
  // A workspace package and a `tsconfig` path alias inside the app repository.
  "packages/shared/package.json": JSON.stringify({ name: "@app/shared", main: "src/index.ts" }),
  "packages/shared/src/index.ts": `export function sharedUtil(): number {
  return 1;
}
`,
  "tsconfig.json": JSON.stringify({
    compilerOptions: { baseUrl: ".", paths: { "@lib/*": ["src/lib/*"] } },
  }),
  "src/lib/math.ts": `export function add(a: number, b: number): number {
  return a + b;
}
`,
  "src/workspace_use.ts": `import { sharedUtil } from "@app/shared";
import { add } from "@lib/math";

export function useShared(): number {
  return add(sharedUtil(), 1);
}
`,
  "src/main.ts": `import { formatDate as fmt, Button } from "@acme/ui";
import { localHelper } from "./util";

export function main(): string {
  const b = new Button();
  b.render();
  localHelper();
  legacyFormat();
  return fmt(new Date());
}

export function start(): void {
  main();
}
`,
  "src/util.ts": `export function localHelper(): void {
  shared();
}

export function shared(): void {}

export function ping(n: number): void {
  if (n > 0) pong(n - 1);
}

export function pong(n: number): void {
  if (n > 0) ping(n - 1);
}
`,
  "src/page.ts": `export class Page {
  render(): string {
    return "page";
  }
}

export function draw(thing: any): void {
  thing.render();
}

export function drawPage(): void {
  const page = new Page();
  page.render();
}
`,
};

/** Not a sibling of `app`: its same-named definitions must never answer for `app`. */
export const OTHER: Record<string, string> = {
  "package.json": JSON.stringify({ name: "@acme/ui-fork" }),
  "src/index.ts": `export function formatDate(d: Date): string {
  return "other";
}

export function legacyFormat(): string {
  return "other";
}

export class Button {
  render(): string {
    return "other";
  }
}
`,
};

export const PYLIB: Record<string, string> = {
  "pyproject.toml": `[project]\nname = "acme-lib"\n`,
  "acme_lib/__init__.py": `from .core import normalize\n`,
  "acme_lib/core.py": `def normalize(s):
    return _strip(s)


def _strip(s):
    return s.strip()


class Store:
    def get(self, key):
        return self._load(key)

    def _load(self, key):
        return key
`,
  "acme_lib/util.py": `def helper():
    return "lib"
`,
};

export const PYSVC: Record<string, string> = {
  "service/__init__.py": "",
  "service/app.py": `from acme_lib import normalize
from acme_lib.core import Store
import acme_lib.core as core
import acme_lib.util
from .helpers import helper


def handle(x):
    s = Store()
    s.get(x)
    core.normalize(x)
    helper()
    return normalize(x)


class Handler:
    def __init__(self):
        self.store = Store()

    def run(self, x):
        self.store.get(x)
        return self.process(x)

    def process(self, x):
        return handle(x)


def use(obj):
    return obj.get(1)


def peek(thing):
    return thing._load(1)


def qualified():
    return acme_lib.util.helper()
`,
  "service/helpers.py": `def helper():
    return "svc"
`,
  "service/cache.py": `class Cache:
    def get(self, key):
        return None
`,
  "service/dyn.py": `def dispatch(obj, name):
    return getattr(obj, name)()
`,
};

export const GOKIT: Record<string, string> = {
  "go.mod": "module github.com/acme/gokit\n\ngo 1.21\n",
  "strs/strs.go": `package strs

func Reverse(s string) string {
	return helper(s)
}
`,
  "strs/helper.go": `package strs

func helper(s string) string {
	return s
}
`,
};

export const GOSVC: Record<string, string> = {
  "go.mod": "module github.com/acme/gosvc\n\ngo 1.21\n\nrequire github.com/acme/gokit v0.1.0\n",
  "main.go": `package main

import "github.com/acme/gokit/strs"

type Server struct{}

func (s *Server) Handle() string {
	return s.log(strs.Reverse("x"))
}

func (s *Server) log(m string) string {
	return m
}

func main() {
	srv := &Server{}
	srv.Handle()
}
`,
};

export const REPOSITORIES: Record<string, Record<string, string>> = {
  ui: UI,
  app: APP,
  other: OTHER,
  pylib: PYLIB,
  pysvc: PYSVC,
  gokit: GOKIT,
  gosvc: GOSVC,
};

export const SIBLINGS = [["ui", "app"], ["pylib", "pysvc"], ["gokit", "gosvc"]];

/** Writes the workspace under a fresh temporary root; returns the root and each repository's path. */
export function writeWorkspaceFixture(
  repositories: Record<string, Record<string, string>> = REPOSITORIES,
): { root: string; repos: Record<string, string> } {
  const root = Deno.realPathSync(tempDirectory({ prefix: "sextant-workspace-" }));
  const repos: Record<string, string> = {};
  for (const [name, files] of Object.entries(repositories)) {
    const dir = join(root, name);
    writeFiles(dir, files);
    git(dir, "init", "-q");
    git(dir, "add", "-A");
    git(dir, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "fixture");
    repos[name] = dir;
  }
  const names = Object.keys(repositories);
  const yaml = [
    "repositories:",
    ...names.map((name) => `  - name: ${name}\n    path: ${name}`),
    "project_siblings:",
    ...SIBLINGS.filter((group) => group.every((n) => names.includes(n))).map((group) =>
      `  - [${group.join(", ")}]`
    ),
    "",
  ].join("\n");
  Deno.writeTextFileSync(join(root, "sextant.yml"), yaml);
  return { root, repos };
}

/** True when the Go grammar has landed (Go fixture tests are skipped until then). */
export function goGrammarPresent(): boolean {
  try {
    return Deno.statSync(new URL("../grammars/go", import.meta.url)).isDirectory;
  } catch {
    return false;
  }
}
