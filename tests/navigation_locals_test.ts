/**
 * Parameters and locals of TypeScript functions: only the parameter list binds a name, so a
 * type written in a return annotation (`): Cookie =>`) or in a function type of an annotation
 * is still the type; parameters of nested arrow functions bind their uses.
 */
import nodeAssert from "node:assert/strict";
import { fixtureRepository, withWorkspace } from "./_helpers.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  nodeAssert.deepStrictEqual(actual, expected, message);

const FILES = {
  "src/cookie.ts": `export type Cookie = Record<string, string>

export const parse = (text: string, name?: string): Cookie => {
  const parsed: Cookie = Object.create(null)
  return parsed
}

export const isCookie = (value: unknown): value is Cookie => {
  return typeof value === 'object'
}
`,
  "src/hooks.ts": `const run = (callback: () => void): void => {
  callback()
}

export const useTransition = (): [boolean, (callback: () => void) => void] => {
  const start = wrap(
    (callback) => {
      run(() => {
        callback()
      })
    },
  )
  return [false, start]
}

function wrap<T>(fn: T): T {
  return fn
}
`,
  "src/tree.tsx": `export async function walk(dir: string): Promise<void> {
  for (const entry of [dir]) {
    await walk(entry)
  }
}

export function page() {
  const Form = () => <form />
  const forms = [Form]
  return <Form />
}
`,
  "src/nodes.ts": `export class Node {
  constructor(public tag: string) {}
}

export class FunctionNode extends Node {}

export class TextNode extends Node {
  constructor(text: string) {
    super(text)
  }
}

export const make = () => [new Node('a'), new FunctionNode('b'), new TextNode('c')]
`,
  "src/processor.ts": `export abstract class Processor {
  abstract query(event: string): string

  handle(event: string): string {
    return this.query(event)
  }
}

export class AlbProcessor extends Processor {
  query(event: string): string {
    return event
  }
}

export class Other {
  query(): string {
    return ''
  }

  run(): string {
    return this.query()
  }
}
`,
};

Deno.test("a return type is not a parameter; nested arrow parameters bind", async (t) => {
  const root = fixtureRepository(FILES);
  await withWorkspace(root, async (workspace, run) => {
    await workspace.refresh(workspace.repositories[0]);

    await t.step("references of a type used in arrow return annotations", async () => {
      const refs = await run("references", { path: "src/cookie.ts", line: 1, column: 13 });
      const lines = refs.results.filter((h) => h.path === "src/cookie.ts").map((h) =>
        `${h.start_line} ${h.confidence}`
      ).sort();
      assertEquals(lines, ["3 exact", "4 exact", "8 exact"]);
    });

    await t.step("a parameter of the enclosing function is still a parameter", async () => {
      const def = await run("definition", { path: "src/cookie.ts", line: 4, column: 17 });
      assertEquals(def.results.map((h) => `${h.path}:${h.start_line}`), ["src/cookie.ts:1"]);
    });

    await t.step("a recursive call is a reference of its own definition", async () => {
      const refs = await run("references", { path: "src/tree.tsx", line: 1, column: 23 });
      assertEquals(refs.results.map((h) => `${h.path}:${h.start_line} ${h.symbol}`), [
        "src/tree.tsx:3 src/tree.walk",
      ]);
    });

    await t.step("a nested definition is its uses' definition, not a pseudo-local", async () => {
      const refs = await run("references", { path: "src/tree.tsx", line: 8, column: 9 });
      assertEquals(refs.results.map((h) => `${h.path}:${h.start_line}`).sort(), [
        "src/tree.tsx:10",
        "src/tree.tsx:9",
      ]);
    });

    await t.step(
      "constructing a subclass without a constructor uses the inherited one",
      async () => {
        const refs = await run("references", { path: "src/nodes.ts", line: 2, column: 3 });
        assertEquals(
          refs.results.map((h) => `${h.path}:${h.start_line}:${h.start_column}`).sort(),
          ["src/nodes.ts:13:28", "src/nodes.ts:13:43"],
        );
      },
    );

    await t.step("a use of an overridden member may dispatch to the override", async () => {
      const refs = await run("references", { path: "src/processor.ts", line: 10, column: 3 });
      assertEquals(
        refs.results.map((h) => `${h.path}:${h.start_line} ${h.confidence} ${h.symbol}`),
        ["src/processor.ts:5 approximate src/processor.Processor.handle"],
      );
    });

    await t.step("a nested arrow's parameter, not a function type's, binds the use", async () => {
      const def = await run("definition", { path: "src/hooks.ts", line: 9, column: 9 });
      assertEquals(
        def.results.map((h) => `${h.path}:${h.start_line}:${h.start_column} ${h.kind}`),
        ["src/hooks.ts:7:6 parameter"],
      );
    });
  });
});

Deno.test("a qualified name written whole through a module alias is a reference", async () => {
  const root = fixtureRepository({
    "pkg/__init__.py": "",
    "pkg/_types.py": "from typing import Union\n\nCertType = Union[str, None]\n",
    "pkg/session.py": `from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import _types as _t


def send(cert: "_t.CertType" = None) -> None:
    pass


def verify(cert: _t.CertType) -> None:
    pass
`,
  });
  await withWorkspace(root, async (workspace, run) => {
    await workspace.refresh(workspace.repositories[0]);
    const refs = await run("references", { symbol: "pkg._types.CertType" });
    const sites = refs.results.filter((h) => h.kind === "type_of").map((h) =>
      `${h.path}:${h.start_line} ${h.confidence}`
    );
    assertEquals(sites, ["pkg/session.py:11 exact"]);
  });
});
