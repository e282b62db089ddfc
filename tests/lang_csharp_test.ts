/** C#: definitions, relations, id stability and chunks, checked through the index. */
import { checkChunkBoundaries, checkFixture, checkIdStability } from "./_lang_fixture.ts";

const GREETER = `using System;
// ^ imports: * module=System alias=-
using System.Collections.Generic;
// ^ imports: * module=System.Collections.Generic
using IO = System.IO;
// ^ imports: System.IO module=System.IO alias=IO

namespace App.Core
// ^ def: App.Core namespace
{
    /// <summary>Greets people.</summary>
    [Serializable]
    public class Greeter<T> : Base, IRunnable where T : class
// ^ def: App.Core.Greeter class
// ^ inherits: Base from=App.Core.Greeter
// ^ implements: IRunnable from=App.Core.Greeter
    {
        private int count;
// ^ def: App.Core.Greeter.count field
        public string Name { get; set; }
// ^ def: App.Core.Greeter.Name property
        public Greeter(string name) { this.Name = name; }
// ^ def: App.Core.Greeter.Greeter constructor
// ^ writes: Name receiver=this from=App.Core.Greeter.Greeter
        public void Run(int times)
// ^ def: App.Core.Greeter.Run method
        {
            Helper(times);
// ^ calls: Helper receiver=- from=App.Core.Greeter.Run
            Console.WriteLine(this.Name);
// ^ calls: WriteLine receiver=Console from=App.Core.Greeter.Run
// ^ reads: Name receiver=this from=App.Core.Greeter.Run
            var items = new List<int>();
// ^ calls: List from=App.Core.Greeter.Run
            count = items.Count;
// ^ writes: count receiver=- from=App.Core.Greeter.Run
// ^ reads: Count receiver=items from=App.Core.Greeter.Run
        }
        private class Inner { }
// ^ def: App.Core.Greeter.Inner class
        public static Greeter operator +(Greeter a, Greeter b) => a;
// ^ def: "App.Core.Greeter.operator +" method
        public static implicit operator string(Greeter g) => g.Name;
// ^ def: "App.Core.Greeter.operator string" method
    }

    public interface IRunnable { void Run(int times); }
// ^ def: App.Core.IRunnable interface
// ^ def: App.Core.IRunnable.Run method
    public struct Point { public int X; }
// ^ def: App.Core.Point struct
// ^ def: App.Core.Point.X field
    public enum Color { Red, Green }
// ^ def: App.Core.Color enum
// ^ def: App.Core.Color.Red constant
// ^ def: App.Core.Color.Green constant
    public record Pair(int A, int B);
// ^ def: App.Core.Pair record
}
`;

Deno.test("csharp: definitions and relations of the fixture", async () => {
  await checkFixture({ "src/Greeter.cs": GREETER }, {
    exhaustiveKinds: ["class", "interface", "struct", "enum", "method", "constructor", "namespace"],
    exhaustiveRelations: ["calls", "imports", "inherits", "implements"],
  });
});

Deno.test("csharp: a file-scoped namespace owns the file's types", async () => {
  await checkFixture({
    "src/Flat.cs": `namespace Flat.Name;
// ^ def: Flat.Name namespace

public class Kernel
// ^ def: Flat.Name.Kernel class
{
    public void Handle() { }
// ^ def: Flat.Name.Kernel.Handle method
}
`,
  });
});

Deno.test("csharp: a method keeps its id when a method is inserted above it", async () => {
  const method = "    int Stable() {\n        return 1;\n    }\n";
  await checkIdStability({
    path: "A.cs",
    before: `namespace N {\nclass A {\n${method}}\n}\n`,
    after: `namespace N {\nclass A {\n    void Inserted() {}\n\n${method}}\n}\n`,
    symbol: "N.A.Stable",
  });
});

Deno.test("csharp: a long method keeps its doc comment and attributes in its first chunk", async () => {
  const body = Array.from({ length: 120 }, (_, i) => `        int v${i} = Compute(${i}, "pad");`)
    .join("\n");
  await checkChunkBoundaries({
    path: "A.cs",
    source:
      `class A {\n    /// <summary>Does a lot.</summary>\n    [Obsolete]\n    public void Long(\n` +
      `        int a)\n    {\n${body}\n    }\n}\n`,
    symbol: "A.Long",
    firstLine: 2,
    bodyLine: 6,
  });
});

Deno.test("csharp: a file with a syntax error keeps the rest", async () => {
  await checkFixture({
    "A.cs": `class A {
// ^ def: A class
    int Good() { return 1; }
// ^ def: A.Good method
    int Broken() { return = ; }
    int Kept() { return 2; }
// ^ def: A.Kept method
}
`,
  }, { clean: false });
});
