/**
 * The `lsp:` section of `sextant.yml`. It is parsed with the rest of the file
 * when the workspace config loads (`src/workspace/config.ts`, below this layer),
 * so the parser lives in `src/workspace/lsp_config.ts`; this module is its name
 * for the LSP backend.
 */
export * from "../workspace/lsp_config.ts";
