/** C++: definitions, relations, id stability and chunks, checked through the index. */
import { checkChunkBoundaries, checkFixture, checkIdStability } from "./_lang_fixture.ts";

const WIDGET = `#include <vector>
// ^ imports: <vector> module=<vector>
#include "base.h"
// ^ imports: base.h module=base.h
using namespace std;
// ^ imports: * module=std
using std::string;
// ^ imports: string module=std

namespace app {
// ^ def: app namespace
namespace detail {
// ^ def: app::detail namespace

/// A widget.
class Widget : public Base, private Mixin<int> {
// ^ def: app::detail::Widget class
// ^ inherits: Base from=app::detail::Widget
// ^ inherits: Mixin from=app::detail::Widget
 public:
  Widget(int size);
// ^ def: app::detail::Widget::Widget method
  ~Widget();
// ^ def: app::detail::Widget::~Widget method
  virtual void draw() const;
// ^ def: app::detail::Widget::draw method
  template <typename T> T get() { return T(); }
// ^ def: app::detail::Widget::get method
// ^ calls: T from=app::detail::Widget::get
  int size_;
// ^ def: app::detail::Widget::size_ field
  explicit operator bool() const;
// ^ def: "app::detail::Widget::operator bool" method
  bool operator==(const Widget& other) const { return size_ == other.size_; }
// ^ def: app::detail::Widget::operator== method
};

struct Point { int x; int y; };
// ^ def: app::detail::Point struct
// ^ def: app::detail::Point::x field
// ^ def: app::detail::Point::y field

}  // namespace detail

void detail::Widget::draw() const {
// ^ def: app::detail::Widget::draw method
  helper();
// ^ calls: helper receiver=- from=app::detail::Widget::draw
  this->size_ = 1;
// ^ writes: size_ receiver=this from=app::detail::Widget::draw
  std::sort(items.begin(), items.end());
// ^ calls: sort receiver=std from=app::detail::Widget::draw
// ^ calls: begin receiver=items from=app::detail::Widget::draw
// ^ calls: end receiver=items from=app::detail::Widget::draw
  auto w = new Widget(3);
// ^ calls: Widget from=app::detail::Widget::draw
  w->run();
// ^ calls: run receiver=w from=app::detail::Widget::draw
}

detail::Widget::Widget(int size) : size_(size) {}
// ^ def: app::detail::Widget::Widget method
// ^ writes: size_ from=app::detail::Widget::Widget

template <typename T>
void swap_all(T& a, T& b) {}
// ^ def: app::swap_all function

enum class Color { Red, Green };
// ^ def: app::Color enum
// ^ def: app::Color::Red constant
// ^ def: app::Color::Green constant

using Names = std::vector<string>;
// ^ def: app::Names type

int operator+(const Point& a, const Point& b) { return a.x + b.x; }
// ^ def: app::operator+ function
// ^ type_of: Point from=app::operator+

}  // namespace app
`;

Deno.test("cpp: definitions and relations of the fixture", async () => {
  await checkFixture({ "src/widget.cpp": WIDGET }, {
    exhaustiveKinds: ["function", "method", "class", "struct", "namespace", "enum"],
    exhaustiveRelations: ["calls", "imports", "inherits"],
  });
});

Deno.test("cpp: headers are C++; a method keeps its id when a member is inserted above it", async () => {
  const method = "  int stable() const {\n    return 1;\n  }\n";
  await checkIdStability({
    path: "include/box.h",
    before: `namespace n {\nclass Box {\n${method}};\n}\n`,
    after: `namespace n {\nclass Box {\n  void inserted();\n\n${method}};\n}\n`,
    symbol: "n::Box::stable",
  });
});

Deno.test("cpp: a long template function keeps its template line and comment in its first chunk", async () => {
  const body = Array.from({ length: 120 }, (_, i) => `  int v${i} = compute(${i}, "pad");`)
    .join("\n");
  await checkChunkBoundaries({
    path: "a.cpp",
    source:
      `// Does a lot.\ntemplate <typename T>\nT long_one(T a,\n           T b) {\n${body}\n  return a;\n}\n`,
    symbol: "long_one",
    firstLine: 1,
    bodyLine: 4,
  });
});

Deno.test("cpp: a file with a syntax error keeps the rest", async () => {
  await checkFixture({
    "a.cpp": `int good() { return 1; }
// ^ def: good function

int broken() { return = ; }

class Kept { int a; };
// ^ def: Kept class
`,
  }, { clean: false });
});
