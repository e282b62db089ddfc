/** Go: definitions, relations, id stability and chunks, checked through the index. */
import assert from "node:assert/strict";
import { checkChunkBoundaries, checkFixture, checkIdStability } from "./_lang_fixture.ts";

const SERVER = `// Package server serves.
package server

import (
	"fmt"
// ^ imports: fmt module=fmt alias=-
	str "strings"
// ^ imports: strings module=strings alias=str
	. "os"
// ^ imports: * module=os
	_ "embed"
// ^ imports: embed module=embed alias=_
)

// Server serves requests.
type Server struct {
// ^ def: server.Server struct
	Base
// ^ inherits: Base from=server.Server
	*log.Logger
// ^ inherits: log.Logger from=server.Server
	addr string
// ^ def: server.Server.addr field
// ^ type_of: string from=server.Server.addr
	Left, Right *Node
// ^ def: server.Server.Left field
// ^ def: server.Server.Right field
}

type Handler interface {
// ^ def: server.Handler interface
	io.Reader
// ^ inherits: io.Reader from=server.Handler
	Serve(ctx context.Context) error
// ^ def: server.Handler.Serve method
}

type ID = int
// ^ def: server.ID type

const MaxConns = 10
// ^ def: server.MaxConns constant

var counter, other = 1, 2
// ^ def: server.counter variable
// ^ def: server.other variable

// Start starts the server.
func (s *Server) Start(ctx context.Context) error {
// ^ def: server.Server.Start method
// ^ type_of: context.Context from=server.Server.Start
	s.addr = "x"
// ^ writes: addr receiver=s from=server.Server.Start
	counter = 3
// ^ writes: counter receiver=- from=server.Server.Start
	s.listen(s.addr)
// ^ calls: listen receiver=s from=server.Server.Start
// ^ reads: addr receiver=s from=server.Server.Start
	fmt.Println(str.ToUpper("x"))
// ^ calls: Println receiver=fmt from=server.Server.Start
// ^ calls: ToUpper receiver=str from=server.Server.Start
	run := func() { helper() }
// ^ calls: helper receiver=- from=server.Server.Start
	run()
// ^ calls: run receiver=- from=server.Server.Start
	return nil
}

func (l List[T]) Len() int { return len(l.items) }
// ^ def: server.List.Len method
// ^ calls: len from=server.List.Len

func New[T any](v T) *Server {
// ^ def: server.New function
// ^ type_of: Server from=server.New
	return &Server{addr: "a"}
// ^ calls: Server from=server.New
}
`;

Deno.test("go: definitions and relations of the fixture", async () => {
  await checkFixture({ "server/server.go": SERVER }, {
    exhaustiveKinds: ["function", "method", "struct", "interface", "type"],
    exhaustiveRelations: ["calls", "imports", "inherits"],
  });
});

Deno.test("go: a method keeps its id when a function is inserted above it", async () => {
  const method = "func (s *Server) Stable() int {\n\treturn 1\n}\n";
  await checkIdStability({
    path: "server/server.go",
    before: `package server\n\n${method}`,
    after: `package server\n\nfunc Inserted() {}\n\n${method}`,
    symbol: "server.Server.Stable",
  });
});

Deno.test("go: a long function splits at statements and keeps its doc comment", async () => {
  const body = Array.from({ length: 120 }, (_, i) => `\tvalue${i} := compute(${i}, "padding text")`)
    .join("\n");
  await checkChunkBoundaries({
    path: "server/long.go",
    source: `package server\n\n// Long does a lot.\nfunc Long() {\n${body}\n}\n`,
    symbol: "server.Long",
    firstLine: 3,
    bodyLine: 4,
  });
});

Deno.test("go: a file with a syntax error keeps the rest", async () => {
  await checkFixture({
    "server/broken.go": `package server

func Good() int { return 1 }
// ^ def: server.Good function

func Broken() int { return ) }

type Kept struct{ a int }
// ^ def: server.Kept struct
`,
  }, { clean: false, check: (db) => assert.ok(errorCount(db) > 0) });
});

function errorCount(db: { prepare(sql: string): { get(): unknown } }): number {
  return Number((db.prepare("SELECT count(*) AS n FROM index_errors").get() as { n: number }).n);
}
