/** LSP `languageId`s of `textDocument/didOpen`, by file extension (the LSP specification's table). */
const BY_EXTENSION: Record<string, string> = {
  py: "python",
  pyi: "python",
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "typescriptreact",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascriptreact",
  go: "go",
  rs: "rust",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hh: "cpp",
  hpp: "cpp",
  hxx: "cpp",
  java: "java",
  cs: "csharp",
  rb: "ruby",
  php: "php",
  kt: "kotlin",
  swift: "swift",
  scala: "scala",
  sh: "shellscript",
  bash: "shellscript",
  lua: "lua",
};

/** The `languageId` of a path, falling back to the Sextant language name. */
export function languageIdOf(path: string, language: string): string {
  const dot = path.lastIndexOf(".");
  const extension = dot < 0 ? "" : path.slice(dot + 1).toLowerCase();
  return BY_EXTENSION[extension] ?? language;
}
