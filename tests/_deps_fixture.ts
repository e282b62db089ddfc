/**
 * Repositories with installed dependencies for the dependency-index tests: a Python virtual
 * environment (a package with a dist-info, a compiled-only one, a package whose import would
 * leave a marker if it ever ran), a node_modules (a package with declarations and a minified
 * bundle, a pnpm-style link into node_modules/.pnpm, a link out of the repository), and Go and
 * Rust module caches outside it.
 */
import { join } from "node:path";
import { fixtureRepository, tempDirectory, writeFiles } from "./_helpers.ts";

/** Files whose presence would mean a package's code ran. */
export const MARKER_DIRECTORY = tempDirectory({ prefix: "sextant-deps-marker-" });

export const APP_FILES: Record<string, string> = {
  ".gitignore": ".venv/\nnode_modules/\n",
  "requirements.txt": "fakeretry==1.2.3\n",
  "package.json": JSON.stringify({ name: "app", dependencies: { tinylib: "^2.0.0" } }),
  "app/__init__.py": "",
  "app/client.py": `import os
import fakeretry
from fakeretry.util.retry import Retry
from speedups import fast
from notinstalled import thing
import trap


def make():
    policy = Retry(total=3)
    return fakeretry.connect(policy)
`,
  "src/server.ts": `import { Middleware, Router } from "tinylib";
import { linked } from "linked";
import { away } from "escaper";
import { nothing } from "missingpkg";
import { readFileSync } from "node:fs";
import { untyped } from "untyped";

export function serve(): Router {
  linked();
  return new Router();
}

export function wire(mw: Middleware): void {
  untyped();
}
`,
};

/** site-packages of the fixture's .venv, relative to the repository root. */
export const SITE = ".venv/lib/python3.11/site-packages";

function sitePackages(version: string, marker: string): Record<string, string | Uint8Array> {
  return {
    [".venv/pyvenv.cfg"]: "home = /usr/bin\nversion = 3.11.7\n",
    [`${SITE}/fakeretry/__init__.py`]: `"""A retrying HTTP client."""
from .util.retry import Retry


def connect(policy):
    """Open a connection with a retry policy."""
    return policy
`,
    [`${SITE}/fakeretry/util/__init__.py`]: "",
    [`${SITE}/fakeretry/util/retry.py`]: `class Retry:
    """Retry configuration with exponential backoff."""

    DEFAULT_BACKOFF = 0.5

    def __init__(self, total=10):
        self.total = total

    def sleep_for_backoff(self):
        return self.total * self.DEFAULT_BACKOFF
`,
    [`${SITE}/fakeretry-${version}.dist-info/METADATA`]:
      `Metadata-Version: 2.1\nName: fakeretry\nVersion: ${version}\n`,
    [`${SITE}/fakeretry-${version}.dist-info/top_level.txt`]: "fakeretry\n",
    [`${SITE}/speedups.cpython-311-x86_64-linux-gnu.so`]: new Uint8Array([
      0x7f,
      0x45,
      0x4c,
      0x46,
      0,
      1,
      2,
    ]),
    [`${SITE}/speedups-0.1.dist-info/top_level.txt`]: "speedups\n",
    // Importing this would write a marker: the index must never import it.
    [`${SITE}/trap/__init__.py`]: `open(${
      JSON.stringify(join(MARKER_DIRECTORY, marker))
    }, "w").write("ran")\n`,
  };
}

const MINIFIED = "var a=1;" + "function f(b){return b+1};".repeat(4000) + "\n";

function nodeModules(): Record<string, string> {
  return {
    "node_modules/tinylib/package.json": JSON.stringify({
      name: "tinylib",
      version: "2.0.1",
      types: "./dist/index.d.ts",
      main: "./dist/index.js",
      scripts: { postinstall: `touch ${join(MARKER_DIRECTORY, "postinstall")}` },
    }),
    "node_modules/tinylib/dist/index.d.ts": `/** Routes requests to handlers. */
export declare class Router {
  /** Adds a GET route. */
  get(path: string): this;
}
export declare function compose(): void;
export { Middleware } from "tinymw";
`,
    // Re-exported by tinylib's declarations: indexed although the repository never imports it.
    "node_modules/tinymw/package.json": JSON.stringify({
      name: "tinymw",
      version: "1.0.0",
      types: "index.d.ts",
    }),
    "node_modules/tinymw/index.d.ts":
      "/** A handler in a chain. */\nexport interface Middleware {\n  next(): void;\n}\n",
    // No declarations of its own: DefinitelyTyped's package answers for it.
    "node_modules/untyped/package.json": JSON.stringify({ name: "untyped", version: "0.1.0" }),
    "node_modules/untyped/index.js": "export function untyped() {}\n",
    "node_modules/@types/untyped/package.json": JSON.stringify({
      name: "@types/untyped",
      version: "0.1.2",
      types: "index.d.ts",
    }),
    "node_modules/@types/untyped/index.d.ts": "export declare function untyped(): void;\n",
    "node_modules/tinylib/dist/index.js": MINIFIED,
    "node_modules/tinylib/README.md":
      "# tinylib\n\nA tiny router: mount handlers with Router.get.\n",
    // pnpm: the package lives in node_modules/.pnpm and node_modules/<name> links to it.
    "node_modules/.pnpm/linked@1.0.0/node_modules/linked/package.json": JSON.stringify({
      name: "linked",
      version: "1.0.0",
      main: "index.js",
    }),
    "node_modules/.pnpm/linked@1.0.0/node_modules/linked/index.js":
      "export function linked() {\n  return 1;\n}\n",
    // A minified bundle: kept as text, never parsed for structure, never run.
    "node_modules/.pnpm/linked@1.0.0/node_modules/linked/bundle.min.js": MINIFIED,
    // Not imported by anything: never walked.
    ...Object.fromEntries(
      Array.from(
        { length: 300 },
        (_, i) => [`node_modules/unused/lib/f${i}.js`, `export const x${i} = ${i};\n`],
      ),
    ),
  };
}

/** A repository with a virtual environment and node_modules (not committed: both ignored). */
export function appRepository(options: { version?: string; marker?: string } = {}): string {
  const root = fixtureRepository(APP_FILES);
  writeFiles(root, sitePackages(options.version ?? "1.2.3", options.marker ?? "python-import"));
  const outside = tempDirectory({ prefix: "sextant-outside-" });
  writeFiles(outside, {
    "escaper/package.json": JSON.stringify({ name: "escaper", version: "9.9.9" }),
    "escaper/index.d.ts": "export declare function away(): void;\n",
  });
  writeFiles(root, nodeModules());
  Deno.symlinkSync(
    join(root, "node_modules/.pnpm/linked@1.0.0/node_modules/linked"),
    join(root, "node_modules/linked"),
  );
  Deno.symlinkSync(join(outside, "escaper"), join(root, "node_modules/escaper"));
  return root;
}

/** Replaces the installed fakeretry with another version (what `pip install -U` does). */
export function upgradeFakeretry(root: string, from: string, to: string): void {
  Deno.removeSync(join(root, SITE, `fakeretry-${from}.dist-info`), { recursive: true });
  writeFiles(root, {
    [`${SITE}/fakeretry-${to}.dist-info/METADATA`]:
      `Metadata-Version: 2.1\nName: fakeretry\nVersion: ${to}\n`,
    [`${SITE}/fakeretry-${to}.dist-info/top_level.txt`]: "fakeretry\n",
    [`${SITE}/fakeretry/util/retry.py`]: `class Retry:
    """Retry configuration, now with jitter."""

    def __init__(self, total=10, jitter=0.1):
        self.total = total
        self.jitter = jitter
`,
  });
}

/** Go and Rust caches outside the repository, and a repository using both. */
export function nativeRepository(): { root: string; env: Record<string, string> } {
  const caches = tempDirectory({ prefix: "sextant-caches-" });
  writeFiles(caches, {
    "gomod/github.com/!acme/kit@v1.4.0/go.mod": "module github.com/Acme/kit\n\ngo 1.21\n",
    "gomod/github.com/!acme/kit@v1.4.0/client/client.go": `package client

// Dial opens a connection.
func Dial(addr string) *Conn { return &Conn{} }

// Conn is a connection.
type Conn struct{}
`,
    "gomod/github.com/!acme/kit@v1.4.0/client/client_test.go": "package client\n",
    "cargo/registry/src/index.crates.io-6f17d22bba15001f/tinyserde-1.0.3/Cargo.toml":
      '[package]\nname = "tinyserde"\nversion = "1.0.3"\n',
    "cargo/registry/src/index.crates.io-6f17d22bba15001f/tinyserde-1.0.3/src/lib.rs":
      "/// Serializes a value.\npub fn to_string(value: &str) -> String {\n    value.to_string()\n}\n",
  });
  const root = fixtureRepository({
    "go.mod": "module example.com/app\n\ngo 1.21\n\nrequire github.com/Acme/kit v1.4.0\n",
    "main.go": `package main

import (
	"fmt"

	"github.com/Acme/kit/client"
)

func main() {
	conn := client.Dial("localhost")
	fmt.Println(conn)
}
`,
    "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n',
    "Cargo.lock": `version = 3

[[package]]
name = "app"
version = "0.1.0"

[[package]]
name = "tinyserde"
version = "1.0.3"
source = "registry+https://github.com/rust-lang/crates.io-index"
`,
    "src/main.rs": `use tinyserde::to_string;

fn main() {
    let text = to_string("x");
    println!("{}", text);
}
`,
  });
  return {
    root,
    env: {
      GOMODCACHE: join(caches, "gomod"),
      GOPATH: join(caches, "gopath"),
      CARGO_HOME: join(caches, "cargo"),
    },
  };
}
