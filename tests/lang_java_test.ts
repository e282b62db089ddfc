/** Java: definitions, relations, id stability and chunks, checked through the index. */
import { checkChunkBoundaries, checkFixture, checkIdStability } from "./_lang_fixture.ts";

const GREETER = `package com.example.app;

import java.util.List;
// ^ imports: List module=java.util alias=-
import java.util.*;
// ^ imports: * module=java.util
import static java.lang.Math.max;
// ^ imports: max module=java.lang.Math

/** Greets people. */
@Deprecated
public class Greeter<T> extends Base implements Runnable, Comparable<Greeter> {
// ^ def: com.example.app.Greeter class
// ^ inherits: Base from=com.example.app.Greeter
// ^ implements: Runnable from=com.example.app.Greeter
// ^ implements: Comparable from=com.example.app.Greeter
    private static final int MAX = 3;
// ^ def: com.example.app.Greeter.MAX field
    String name, other;
// ^ def: com.example.app.Greeter.name field
// ^ def: com.example.app.Greeter.other field
// ^ type_of: String from=com.example.app.Greeter.name

    public Greeter(String name) {
// ^ def: com.example.app.Greeter.Greeter constructor
        super();
// ^ calls: super from=com.example.app.Greeter.Greeter
        this.name = name;
// ^ writes: name receiver=this from=com.example.app.Greeter.Greeter
    }

    @Override
    public void run() {
// ^ def: com.example.app.Greeter.run method
        helper(max(1, MAX));
// ^ calls: helper receiver=- from=com.example.app.Greeter.run
// ^ calls: max receiver=- from=com.example.app.Greeter.run
        System.out.println(this.name);
// ^ calls: println receiver=System.out from=com.example.app.Greeter.run
// ^ reads: name receiver=this from=com.example.app.Greeter.run
        List<String> xs = new ArrayList<>();
// ^ calls: ArrayList from=com.example.app.Greeter.run
// ^ type_of: List from=com.example.app.Greeter.run
    }

    int compareTo(Greeter o) { return 0; }
// ^ def: com.example.app.Greeter.compareTo method
// ^ type_of: Greeter from=com.example.app.Greeter.compareTo

    int compareTo(Object o) { return 1; }
// ^ def: com.example.app.Greeter.compareTo method

    static class Inner implements Cloneable {
// ^ def: com.example.app.Greeter.Inner class
// ^ implements: Cloneable from=com.example.app.Greeter.Inner
        void f() {}
// ^ def: com.example.app.Greeter.Inner.f method
    }

    interface Callback extends Runnable {
// ^ def: com.example.app.Greeter.Callback interface
// ^ inherits: Runnable from=com.example.app.Greeter.Callback
        void call();
// ^ def: com.example.app.Greeter.Callback.call method
    }

    enum Color { RED, GREEN }
// ^ def: com.example.app.Greeter.Color enum
// ^ def: com.example.app.Greeter.Color.RED constant
// ^ def: com.example.app.Greeter.Color.GREEN constant

    record Pair(int a, int b) {}
// ^ def: com.example.app.Greeter.Pair record
}
`;

Deno.test("java: definitions and relations of the fixture", async () => {
  await checkFixture({ "src/main/java/com/example/app/Greeter.java": GREETER }, {
    exhaustiveKinds: ["class", "interface", "method", "constructor", "enum", "record"],
    exhaustiveRelations: ["calls", "imports", "inherits", "implements"],
    check: async (_db, run) => {
      // Overloads share a qualified name and get distinct ids (ordinals).
      const answer = await run("symbols", { query: "compareTo" });
      const ids = new Set(answer.results.map((result) => result.symbol_id));
      if (ids.size !== 2) throw new Error(`overloads: ${JSON.stringify(answer.results)}`);
    },
  });
});

Deno.test("java: a method keeps its id when a method is inserted above it", async () => {
  const method = "    int stable() {\n        return 1;\n    }\n";
  await checkIdStability({
    path: "A.java",
    before: `package p;\n\nclass A {\n${method}}\n`,
    after: `package p;\n\nclass A {\n    void inserted() {}\n\n${method}}\n`,
    symbol: "p.A.stable",
  });
});

Deno.test("java: a long method keeps its javadoc and annotations in its first chunk", async () => {
  const body = Array.from({ length: 120 }, (_, i) => `        int v${i} = compute(${i}, "pad");`)
    .join("\n");
  await checkChunkBoundaries({
    path: "A.java",
    source:
      `package p;\n\nclass A {\n    /** Does a lot. */\n    @Override\n    public void long_(\n` +
      `            int a) {\n${body}\n    }\n}\n`,
    symbol: "p.A.long_",
    firstLine: 4,
    bodyLine: 7,
  });
});

Deno.test("java: a file with a syntax error keeps the rest", async () => {
  await checkFixture({
    "A.java": `package p;

class A {
// ^ def: p.A class
    int good() { return 1; }
// ^ def: p.A.good method
    int broken() { return ; = }
    int kept() { return 2; }
// ^ def: p.A.kept method
}
`,
  }, { clean: false });
});
