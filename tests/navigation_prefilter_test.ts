/**
 * A walk passes over uses its files' imports settle (`Resolver.mayMean`): a bare name an import
 * binds to another definition is never resolved for a node. Passing over must never lose an
 * edge or an ambiguity: for every relation of a fixture full of shadowing, aliases, wildcard
 * imports, guesses by name and a Java static import, and every definition, a relation said not
 * to mean a definition resolves to neither it nor an ambiguity naming it — and `references`
 * (the same walk, one hop) still finds every use.
 */
import nodeAssert from "node:assert/strict";
import { runAction } from "../src/actions/dispatch.ts";
import { ModuleResolver } from "../src/resolver/modules.ts";
import { Resolver } from "../src/resolver/resolve.ts";
import { ScopeStore } from "../src/resolver/store.ts";
import { sameDefinition } from "../src/resolver/binding.ts";
import type { SymbolRecord } from "../src/resolver/types.ts";
import { RequestScope } from "../src/workspace/scope.ts";
import { Workspace } from "../src/workspace/workspace.ts";
import { fixtureRepository, tempCache } from "./_helpers.ts";

const FILES: Record<string, string> = {
  "lib.py": "class C:\n    pass\n\n\ndef make():\n    return C()\n",
  "other.py": "class C:\n    pass\n",
  // Imports of the same name from two modules, aliases both ways, a wildcard.
  "uses_lib.py": "from lib import C\n\nx = C()\n\n\ndef f():\n    return C()\n",
  "uses_other.py": "from other import C\n\ny = C()\n\n\ndef g():\n    return C()\n",
  "alias.py": "from lib import C as K\n\n\ndef h():\n    return K()\n",
  "swapped.py": "from other import C as K\nfrom lib import C as D\n\n\ndef i():\n" +
    "    return K(), D()\n",
  "star.py": "from lib import *\n\n\ndef j():\n    return C()\n",
  // A parameter shadows the import; a parameter bears an alias's name; a name no import binds.
  "shadow.py": "from lib import C\n\n\ndef k(C):\n    return C()\n\n\ndef m(K):\n" +
    "    return K(), make()\n",
  // A module-level definition shadows the import of the same name.
  "redefined.py": "from lib import C\n\n\nclass C:\n    pass\n\n\ndef n():\n    return C()\n",
  "lib.ts": "export class C {}\nexport function make() { return new C(); }\n",
  "other.ts": "export class C {}\n",
  // Java: a bare call in a subclass binds the inherited member before any static import.
  "app/Util.java":
    "package app;\npublic class Util {\n  public static int run() { return 1; }\n}\n",
  "app/Base.java": "package app;\npublic class Base {\n  public int run() { return 2; }\n}\n",
  "app/Sub.java": "package app;\nimport static app.Util.run;\npublic class Sub extends Base {\n" +
    "  public int go() { return run(); }\n}\n",
  "use.ts": 'import { C as D } from "./lib";\nimport { C } from "./other";\n' +
    "export function u() { return [new D(), new C()]; }\n",
};

async function withFixture(
  fn: (workspace: Workspace, repo: string) => Promise<void> | void,
): Promise<void> {
  const workspace = await Workspace.open({
    directory: fixtureRepository(FILES),
    cacheDirectory: tempCache(),
  });
  try {
    const repository = workspace.repositories[0];
    await workspace.refresh(repository);
    await fn(workspace, repository.name);
  } finally {
    workspace.close();
  }
}

Deno.test("a use passed over by its file's imports never resolves to the definition it was asked about", async () => {
  await withFixture((workspace, repo) => {
    const resolver = () => {
      const store = new ScopeStore(RequestScope.build(workspace, {}));
      return new Resolver(store, new ModuleResolver(store));
    };
    const relations = workspace.withReader(
      workspace.repositories[0],
      (reader) => reader.relationsOfKinds(),
    ).value!.map((row) => ({ repo, ...row }));
    const symbols: SymbolRecord[] = workspace.withReader(
      workspace.repositories[0],
      (reader) => reader.allSymbols(),
    ).value!.map(({ doc: _doc, ...row }) => ({ repo, ...row }));
    const passed: string[] = [];
    for (const target of symbols) {
      for (const relation of relations) {
        // A fresh resolver for each question: nothing the walk met before decides it.
        if (resolver().mayMean(relation, [target])) continue;
        passed.push(`${relation.path}:${relation.startLine} ${relation.target} ↛ ${target.path}`);
        const resolution = resolver().resolve(relation);
        const means = resolution.status === "resolved"
          ? sameDefinition(resolution.symbol, target)
          : resolution.status === "ambiguous" &&
            resolution.candidates.some((c) => sameDefinition(c.symbol, target));
        nodeAssert.equal(
          means,
          false,
          `${relation.path}:${relation.startLine} '${relation.target}' was passed over for ` +
            `${target.path} ${target.qualified} but resolves to it: ${JSON.stringify(resolution)}`,
        );
      }
    }
    // The uses settled by an import of another definition are passed over.
    for (
      const expected of [
        "uses_other.py:3 C ↛ lib.py",
        "uses_other.py:7 C ↛ lib.py",
        "swapped.py:6 K ↛ lib.py",
        "shadow.py:9 K ↛ lib.py",
        "uses_lib.py:7 C ↛ other.py",
        "use.ts:3 C ↛ lib.ts",
      ]
    ) {
      nodeAssert.ok(
        passed.includes(expected),
        `${expected} not passed over:\n${passed.join("\n")}`,
      );
    }
  });
});

Deno.test("references find every use through imports, aliases, wildcards and guesses, and none shadowed", async () => {
  await withFixture(async (workspace) => {
    const uses = async (symbol: string, path: string) => {
      const answer = await runAction(workspace, "references", { symbol, path });
      return answer.results.map((hit) => `${hit.path}:${hit.start_line}`).sort();
    };
    // Imports are uses too; the parameter `C` in shadow.py and the class in redefined.py are not.
    nodeAssert.deepEqual(await uses("C", "lib.py"), [
      "alias.py:1",
      "alias.py:5",
      "lib.py:6",
      "redefined.py:1",
      "shadow.py:1",
      "star.py:5",
      "swapped.py:2",
      "swapped.py:6",
      "uses_lib.py:1",
      "uses_lib.py:3",
      "uses_lib.py:7",
    ]);
    nodeAssert.deepEqual(await uses("C", "other.py"), [
      "swapped.py:1",
      "swapped.py:6",
      "uses_other.py:1",
      "uses_other.py:3",
      "uses_other.py:7",
    ]);
    // `make()` in shadow.py is bound by nothing: a guess by name, still found.
    nodeAssert.deepEqual(await uses("make", "lib.py"), ["shadow.py:9"]);
    nodeAssert.deepEqual(await uses("C", "lib.ts"), ["lib.ts:2", "use.ts:1", "use.ts:3"]);
    nodeAssert.deepEqual(await uses("C", "other.ts"), ["use.ts:2", "use.ts:3"]);
  });
});
