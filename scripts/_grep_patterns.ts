/**
 * The parity suite of `scripts/grep_parity.ts`: patterns run by Sextant and by
 * `ast-grep run --json` on the same checkout, for each of the seventeen languages. `repo` names an entry of
 * PARITY_REPOSITORIES; `selective` marks patterns whose literal tokens are rare
 * (the ones the ≤ 0.1 wall-time goal is about).
 */
export interface ParityPattern {
  repo: string;
  language: string;
  pattern: string;
  /** What shape the pattern exercises. */
  shape: string;
  selective?: boolean;
}

/** Real repositories of the suite: GitHub name and the ast-grep language of their code. */
export const PARITY_REPOSITORIES: Record<string, { github: string }> = {
  sympy: { github: "sympy/sympy" },
  zod: { github: "colinhacks/zod" },
  cobra: { github: "spf13/cobra" },
  ripgrep: { github: "BurntSushi/ripgrep" },
  gson: { github: "google/gson" },
  express: { github: "expressjs/express" },
  hono: { github: "honojs/hono" },
  sinatra: { github: "sinatra/sinatra" },
  jq: { github: "jqlang/jq" },
  fmt: { github: "fmtlib/fmt" },
  newtonsoft: { github: "JamesNK/Newtonsoft.Json" },
  slim: { github: "slimphp/Slim" },
  okio: { github: "square/okio" },
  alamofire: { github: "Alamofire/Alamofire" },
  scopt: { github: "scopt/scopt" },
  nvm: { github: "nvm-sh/nvm" },
  plenary: { github: "nvim-lua/plenary.nvim" },
};

/** `[repo, language, shape, pattern, selective?]` rows, expanded into `ParityPattern`s. */
type Row = [string, string, string, string, boolean?];

const MORE: Row[] = [
  // JavaScript (express)
  ["express", "javascript", "method call", "res.send($A)"],
  ["express", "javascript", "route registration", "app.get($P, $$$)"],
  ["express", "javascript", "require", "require($M)"],
  ["express", "javascript", "middleware definition", "function $F(req, res, next) { $$$ }", true],
  ["express", "javascript", "if statement", "if ($A === undefined) $B"],
  // TSX (hono)
  ["hono", "tsx", "JSX element", "<div>$$$</div>"],
  ["hono", "tsx", "component", "const $C = () => { $$$ }"],
  ["hono", "tsx", "callback argument", "app.get($P, (c) => c.render($$$))", true],
  ["hono", "tsx", "assertion chain", "expect($A).toBe($B)"],
  ["hono", "tsx", "hook call", "useState($X)", true],
  // Ruby (sinatra)
  ["sinatra", "ruby", "raise", "raise $E, $M"],
  ["sinatra", "ruby", "definition", "def $M($$$ARGS)"],
  ["sinatra", "ruby", "block", "$X.each do |$Y| $$$ end"],
  ["sinatra", "ruby", "call without parentheses", "assert_equal $A, $B"],
  ["sinatra", "ruby", "call with a block", "get($P) { $$$ }"],
  ["sinatra", "ruby", "binary operator", "$A || $B"],
  // C (jq)
  ["jq", "c", "if statement", "if ($C) return $R;"],
  ["jq", "c", "call statement", "jv_free($X);"],
  ["jq", "c", "macro call", "assert($E);"],
  ["jq", "c", "for loop", "for ($I = 0; $I < $N; $I++) $BODY", true],
  ["jq", "c", "repeated metavariable", "$A == $A", true],
  // C++ (fmt)
  ["fmt", "cpp", "macro call", "FMT_ASSERT($C, $M);", true],
  ["fmt", "cpp", "assertion", "EXPECT_EQ($A, $B);"],
  ["fmt", "cpp", "return", "return $X;"],
  ["fmt", "cpp", "template call", "static_cast<$T>($V)"],
  ["fmt", "cpp", "template", "template <typename $T> $$$"],
  // C# (Newtonsoft.Json)
  ["newtonsoft", "csharp", "error handling", "throw new ArgumentNullException($A);", true],
  ["newtonsoft", "csharp", "assertion", "Assert.AreEqual($A, $B);"],
  ["newtonsoft", "csharp", "null check", "if ($X == null) throw $E;", true],
  ["newtonsoft", "csharp", "method call", "$A.Add($B);"],
  ["newtonsoft", "csharp", "constructor call", "return new $T($$$);"],
  ["newtonsoft", "csharp", "object initializer", "new JsonSerializerSettings { $$$ }"],
  // PHP (Slim)
  ["slim", "php", "error handling", "throw new $E($$$);"],
  ["slim", "php", "assertion", "$this->assertSame($A, $B);"],
  ["slim", "php", "method call", "$this->$M($$$)"],
  ["slim", "php", "return", "return $X;"],
  ["slim", "php", "if statement", "if ($C) { $$$ }"],
  // Kotlin (okio)
  ["okio", "kotlin", "assertion", "assertEquals($A, $B)"],
  ["okio", "kotlin", "trailing lambda", "$X.use { $$$ }"],
  ["okio", "kotlin", "require", "require($C) { $M }"],
  ["okio", "kotlin", "expression function", "fun $F($$$): $T = $E", true],
  ["okio", "kotlin", "early return", "if ($A == null) return $B", true],
  // Swift (Alamofire)
  ["alamofire", "swift", "assertion", "XCTAssertEqual($A, $B)"],
  ["alamofire", "swift", "guard", "guard let $X = $Y else { $$$ }"],
  ["alamofire", "swift", "method call", "$A.resume()"],
  ["alamofire", "swift", "assertion", "XCTAssertNil($A)"],
  ["alamofire", "swift", "trailing closure", "DispatchQueue.main.async { $$$ }", true],
  // Scala (scopt)
  ["scopt", "scala", "generic call", "opt[$T]($N)"],
  ["scopt", "scala", "method call", "$A.text($B)"],
  ["scopt", "scala", "assertion", "assert($A == $B)"],
  ["scopt", "scala", "definition", "def $F($$$): $T = $E"],
  ["scopt", "scala", "match", "$X match { $$$ }"],
  // Bash (nvm)
  ["nvm", "bash", "command", "nvm_echo $$$"],
  ["nvm", "bash", "declaration", "local $V"],
  ["nvm", "bash", "command with arguments", "command -v $X", true],
  // Lua (plenary.nvim)
  ["plenary", "lua", "require", "local $X = require($M)"],
  ["plenary", "lua", "assertion", "assert.are.same($A, $B)"],
  ["plenary", "lua", "method path", "vim.api.$F($$$)"],
  ["plenary", "lua", "if statement", "if $C then return $R end"],
  ["plenary", "lua", "for loop", "for $K, $V in pairs($T) do $$$ end", true],
];

export const PARITY_PATTERNS: ParityPattern[] = [
  // Python (sympy, ~800k lines)
  {
    repo: "sympy",
    language: "python",
    shape: "error handling",
    pattern: "raise NotImplementedError($$$)",
  },
  {
    repo: "sympy",
    language: "python",
    shape: "call with one argument",
    pattern: "raise ValueError($A)",
  },
  {
    repo: "sympy",
    language: "python",
    shape: "keyword argument",
    pattern: "Symbol($A, positive=True)",
    selective: true,
  },
  {
    repo: "sympy",
    language: "python",
    shape: "specific arguments",
    pattern: "sympify($A, strict=True)",
    selective: true,
  },
  {
    repo: "sympy",
    language: "python",
    shape: "method call",
    pattern: "$X.rewrite(cos)",
    selective: true,
  },
  {
    repo: "sympy",
    language: "python",
    shape: "method chain",
    pattern: "$A.expand().simplify()",
    selective: true,
  },
  { repo: "sympy", language: "python", shape: "repeated metavariable", pattern: "$A - $A" },
  {
    repo: "sympy",
    language: "python",
    shape: "repeated metavariable",
    pattern: "isinstance($A, $A)",
    selective: true,
  },
  {
    repo: "sympy",
    language: "python",
    shape: "decorator",
    pattern: "@cacheit\ndef $F($$$ARGS):\n    $$$BODY",
    selective: true,
  },
  {
    repo: "sympy",
    language: "python",
    shape: "try/except",
    pattern: "try:\n    $$$A\nexcept ImportError:\n    $$$B",
  },
  {
    repo: "sympy",
    language: "python",
    shape: "with block",
    pattern: "with raises($E):\n    $$$BODY",
  },
  {
    repo: "sympy",
    language: "python",
    shape: "definition",
    pattern: "def _eval_is_real(self):\n    $$$BODY",
  },
  { repo: "sympy", language: "python", shape: "lambda", pattern: "lambda $X: $X", selective: true },
  {
    repo: "sympy",
    language: "python",
    shape: "assert",
    pattern: "assert $A.is_real is None",
    selective: true,
  },
  // TypeScript (zod)
  { repo: "zod", language: "typescript", shape: "call chain", pattern: "z.string().min($N)" },
  {
    repo: "zod",
    language: "typescript",
    shape: "object literal argument",
    pattern: "z.object({ $$$ })",
  },
  { repo: "zod", language: "typescript", shape: "method call", pattern: "$S.safeParse($V)" },
  {
    repo: "zod",
    language: "typescript",
    shape: "assertion chain",
    pattern: "expect($A).toEqual($A)",
  },
  { repo: "zod", language: "typescript", shape: "error handling", pattern: "throw new Error($$$)" },
  {
    repo: "zod",
    language: "typescript",
    shape: "callback argument",
    pattern: "test($NAME, () => { $$$ })",
  },
  {
    repo: "zod",
    language: "typescript",
    shape: "object argument",
    pattern: "ctx.addIssue({ $$$ })",
  },
  {
    repo: "zod",
    language: "typescript",
    shape: "if statement",
    pattern: "if ($A === undefined) return $B;",
  },
  {
    repo: "zod",
    language: "typescript",
    shape: "specific arguments",
    pattern: "z.string().regex($R, $$$)",
    selective: true,
  },
  // Go (cobra)
  {
    repo: "cobra",
    language: "go",
    shape: "error handling",
    pattern: "if err != nil { return err }",
  },
  { repo: "cobra", language: "go", shape: "error handling", pattern: "if err != nil { $$$ }" },
  { repo: "cobra", language: "go", shape: "call with format", pattern: "t.Errorf($F, $$$ARGS)" },
  {
    repo: "cobra",
    language: "go",
    shape: "struct literal",
    pattern: "&cobra.Command{ $$$ }",
    selective: true,
  },
  {
    repo: "cobra",
    language: "go",
    shape: "struct literal field",
    pattern: "&Command{Use: $U, $$$}",
  },
  { repo: "cobra", language: "go", shape: "range loop", pattern: "for _, $V := range $L { $$$ }" },
  { repo: "cobra", language: "go", shape: "specific call", pattern: 'strings.HasPrefix($A, "-")' },
  { repo: "cobra", language: "go", shape: "method chain", pattern: "$C.Flags().StringVarP($$$)" },
  { repo: "cobra", language: "go", shape: "defer", pattern: "defer $F($$$)" },
  // Rust (ripgrep)
  { repo: "ripgrep", language: "rust", shape: "method call", pattern: "$A.unwrap()" },
  { repo: "ripgrep", language: "rust", shape: "attribute", pattern: "#[derive($$$)]" },
  { repo: "ripgrep", language: "rust", shape: "if let", pattern: "if let Some($A) = $B { $$$ }" },
  { repo: "ripgrep", language: "rust", shape: "impl block", pattern: "impl Flag for $T { $$$ }" },
  { repo: "ripgrep", language: "rust", shape: "error return", pattern: "return Err($E)" },
  { repo: "ripgrep", language: "rust", shape: "method chain", pattern: "$A.map_err($F)" },
  { repo: "ripgrep", language: "rust", shape: "struct literal", pattern: "Config { $$$ }" },
  { repo: "ripgrep", language: "rust", shape: "match", pattern: "match $E { $$$ }" },
  {
    repo: "ripgrep",
    language: "rust",
    shape: "macro call",
    pattern: "anyhow::anyhow!($$$)",
    selective: true,
  },
  // Java (gson)
  {
    repo: "gson",
    language: "java",
    shape: "error handling",
    pattern: "throw new IllegalArgumentException($$$)",
  },
  { repo: "gson", language: "java", shape: "assertion", pattern: "assertThat($A).isEqualTo($B)" },
  {
    repo: "gson",
    language: "java",
    shape: "try/catch",
    pattern: "try { $$$ } catch (IOException $E) { $$$ }",
  },
  { repo: "gson", language: "java", shape: "repeated metavariable", pattern: "$A.equals($A)" },
  {
    repo: "gson",
    language: "java",
    shape: "builder chain",
    pattern: "new GsonBuilder().$M($$$).create()",
  },
  { repo: "gson", language: "java", shape: "null check", pattern: "if ($A == null) { $$$ }" },
  {
    repo: "gson",
    language: "java",
    shape: "class literal argument",
    pattern: "assertThrows($E.class, $$$)",
  },
  {
    repo: "gson",
    language: "java",
    shape: "annotation",
    pattern: "@Override\npublic String toString() { $$$ }",
  },
];

PARITY_PATTERNS.push(
  ...MORE.map(([repo, language, shape, pattern, selective]) => ({
    repo,
    language,
    shape,
    pattern,
    ...(selective ? { selective } : {}),
  })),
);
