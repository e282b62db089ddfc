/** Rust: definitions, relations, id stability and chunks, checked through the index. */
import { checkChunkBoundaries, checkFixture, checkIdStability } from "./_lang_fixture.ts";

const SHAPES = `use std::collections::{HashMap, HashSet as Set};
// ^ imports: HashMap module=std::collections alias=-
// ^ imports: HashSet module=std::collections alias=Set
use crate::geo::point;
// ^ imports: point module=crate::geo
use super::*;
// ^ imports: * module=super
use foo::{bar::{baz, qux as q}, self};
// ^ imports: baz module=foo::bar
// ^ imports: qux module=foo::bar alias=q
// ^ imports: self module=foo
extern crate alloc;
// ^ imports: alloc module=alloc

/// A point on the plane.
#[derive(Debug, Clone)]
pub struct Point<T> {
// ^ def: crate::shapes::Point struct
    pub x: T,
// ^ def: crate::shapes::Point::x field
    y: Option<i32>,
// ^ def: crate::shapes::Point::y field
// ^ type_of: Option from=crate::shapes::Point::y
}

pub enum Shape {
// ^ def: crate::shapes::Shape enum
    Circle(f64),
// ^ def: crate::shapes::Shape::Circle variant
}

pub trait Draw: Clone {
// ^ def: crate::shapes::Draw trait
// ^ inherits: Clone from=crate::shapes::Draw
    fn draw(&self) -> u8;
// ^ def: crate::shapes::Draw::draw method
}

type Cache = HashMap<String, u8>;
// ^ def: crate::shapes::Cache type

const MAX: usize = 3;
// ^ def: crate::shapes::MAX constant

static mut COUNT: u32 = 0;
// ^ def: crate::shapes::COUNT variable

mod inner {
// ^ def: crate::shapes::inner module
    pub fn helper() {}
// ^ def: crate::shapes::inner::helper function
}

macro_rules! square {
// ^ def: crate::shapes::square macro
    ($x:expr) => { $x * $x };
}

impl<T: Clone> Draw for Point<T> {
// ^ def: crate::shapes::Point impl
// ^ implements: Draw from=crate::shapes::Point
    fn draw(&self) -> u8 {
// ^ def: crate::shapes::Point::draw method
        self.x.clone();
// ^ calls: clone receiver=self.x from=crate::shapes::Point::draw
        inner::helper();
// ^ calls: helper receiver=inner from=crate::shapes::Point::draw
        square!(2);
// ^ calls: square receiver=- from=crate::shapes::Point::draw
        0
    }
}

impl Point<i32> {
// ^ def: crate::shapes::Point impl
    pub fn new(x: i32) -> Self {
// ^ def: crate::shapes::Point::new method
        let mut p = Point { x, y: None };
// ^ calls: Point from=crate::shapes::Point::new
        p.y = Some(2);
// ^ writes: y receiver=p from=crate::shapes::Point::new
// ^ calls: Some from=crate::shapes::Point::new
        unsafe { COUNT = 1; }
// ^ writes: COUNT receiver=- from=crate::shapes::Point::new
        Vec::<u8>::with_capacity(p.x as usize);
// ^ calls: with_capacity receiver=Vec::<u8> from=crate::shapes::Point::new
        p
    }
}

fn area(shape: &Shape, cache: Cache) -> f64 {
// ^ def: crate::shapes::area function
// ^ type_of: Shape from=crate::shapes::area
// ^ type_of: Cache from=crate::shapes::area
    0.0
}
`;

Deno.test("rust: definitions and relations of the fixture", async () => {
  await checkFixture({ "src/shapes.rs": SHAPES }, {
    exhaustiveKinds: ["function", "method", "struct", "enum", "trait", "impl", "module"],
    exhaustiveRelations: ["calls", "imports", "inherits", "implements"],
  });
});

Deno.test("rust: module paths follow the file (lib.rs, mod.rs, nested)", async () => {
  await checkFixture({
    "src/lib.rs": "pub fn root() {}\n// ^ def: crate::root function\n",
    "src/net/mod.rs": "pub fn open() {}\n// ^ def: crate::net::open function\n",
    "src/net/tcp.rs": "pub fn dial() {}\n// ^ def: crate::net::tcp::dial function\n",
  });
});

Deno.test("rust: a method keeps its id when a function is inserted above the impl", async () => {
  const impl = "impl Point {\n    fn stable(&self) -> i32 {\n        1\n    }\n}\n";
  await checkIdStability({
    path: "src/lib.rs",
    before: `struct Point;\n\n${impl}`,
    after: `struct Point;\n\nfn inserted() {}\n\n${impl}`,
    symbol: "crate::Point::stable",
  });
});

Deno.test("rust: a long function keeps its doc and attributes in its first chunk", async () => {
  const body = Array.from({ length: 120 }, (_, i) => `    let v${i} = compute(${i}, "padding");`)
    .join("\n");
  await checkChunkBoundaries({
    path: "src/lib.rs",
    source:
      `/// Does a lot.\n#[inline]\npub fn long(\n    a: i32,\n) -> i32 {\n${body}\n    0\n}\n`,
    symbol: "crate::long",
    firstLine: 1,
    bodyLine: 5,
  });
});

Deno.test("rust: a file with a syntax error keeps the rest", async () => {
  await checkFixture({
    "src/lib.rs": `fn good() -> i32 { 1 }
// ^ def: crate::good function

fn broken() -> i32 { let = ; }

struct Kept { a: i32 }
// ^ def: crate::Kept struct
`,
  }, { clean: false });
});
