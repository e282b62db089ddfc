/**
 * The `lsp:` section of `sextant.yml`. It is parsed when the workspace loads (so a bad section
 * fails the load like any other), which is why the parser lives in `src/workspace/lsp_config.ts`;
 * this module is the language-server layer's name for it.
 */
export {
  LSP_DEFAULTS,
  type LspConfig,
  type LspServerConfig,
  parseLspConfig,
  serverForLanguage,
} from "../workspace/lsp_config.ts";
