/** C: definitions, relations, id stability and chunks, checked through the index. */
import { checkChunkBoundaries, checkFixture, checkIdStability } from "./_lang_fixture.ts";

const POINT = `#include <stdio.h>
// ^ imports: <stdio.h> module=<stdio.h>
#include "point.h"
// ^ imports: point.h module=point.h

#define MAX_POINTS 10
// ^ def: MAX_POINTS macro
#define SQUARE(x) ((x) * (x))
// ^ def: SQUARE macro

/* A point. */
struct point {
// ^ def: point struct
    int x;
// ^ def: point.x field
    struct point *next;
// ^ def: point.next field
// ^ type_of: point from=point.next
};

typedef struct point point_t;
// ^ def: point_t type

typedef struct {
// ^ def: anon_t type
    int a;
// ^ def: anon_t.a field
} anon_t;

union value { int i; float f; };
// ^ def: value union
// ^ def: value.i field
// ^ def: value.f field

enum color { RED, GREEN };
// ^ def: color enum
// ^ def: color.RED constant
// ^ def: color.GREEN constant

static int counter = 0;
// ^ def: counter variable
int limits[4];
// ^ def: limits variable

int prototype_only(int a);

static inline int add(int a, int b) { return a + b; }
// ^ def: add function

char *describe(struct point *p, const char **argv) {
// ^ def: describe function
// ^ type_of: point from=describe
    p->x = SQUARE(p->next->x);
// ^ writes: x receiver=p from=describe
// ^ calls: SQUARE receiver=- from=describe
    counter = add(1, counter);
// ^ writes: counter receiver=- from=describe
// ^ calls: add receiver=- from=describe
    p->ops->print(p);
// ^ calls: print receiver=p->ops from=describe
    printf("%d", p->x);
// ^ calls: printf from=describe
// ^ reads: x receiver=p from=describe
    return 0;
}
`;

Deno.test("c: definitions and relations of the fixture", async () => {
  await checkFixture({ "src/point.c": POINT }, {
    exhaustiveKinds: ["function", "struct", "union", "enum", "type", "macro", "variable"],
    exhaustiveRelations: ["calls", "imports"],
  });
});

Deno.test("c: a function keeps its id when a function is inserted above it", async () => {
  const fn = "int stable(void) {\n    return 1;\n}\n";
  await checkIdStability({
    path: "a.c",
    before: fn,
    after: `static void inserted(void) {}\n\n${fn}`,
    symbol: "stable",
  });
});

Deno.test("c: a long function keeps its comment and whole signature in its first chunk", async () => {
  const body = Array.from({ length: 120 }, (_, i) => `    int v${i} = compute(${i}, "pad");`)
    .join("\n");
  await checkChunkBoundaries({
    path: "a.c",
    source:
      `/* Does a lot. */\nint long_one(int a,\n             int b)\n{\n${body}\n    return 0;\n}\n`,
    symbol: "long_one",
    firstLine: 1,
    bodyLine: 4,
  });
});

Deno.test("c: a file with a syntax error keeps the rest", async () => {
  await checkFixture({
    "a.c": `int good(void) { return 1; }
// ^ def: good function

int broken(void) { return = ; }

struct kept { int a; };
// ^ def: kept struct
`,
  }, { clean: false });
});
