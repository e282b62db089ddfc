/**
 * The `lsp:` section of `sextant.yml`: one language server per key, each with its command,
 * initialization options, answers to `workspace/configuration`, extra environment and bounds.
 * Values in, values out; a bad value is a `SyntaxError` naming the key.
 */

/** One configured language server. */
export interface LspServerConfig {
  /** The key under `lsp:` (a language name, e.g. `python`). */
  key: string;
  /** The file languages this server answers for (default: the key and its family). */
  languages: string[];
  /** The executable (a name looked up on PATH, or an absolute path) and its arguments. */
  command: string[];
  /** `initializationOptions` of `initialize`, merged under the server's safe settings. */
  initializationOptions: Record<string, unknown>;
  /** Answers to `workspace/configuration`, by dotted section (merged under the safe settings). */
  settings: Record<string, unknown>;
  /** Variables added to the minimal environment the server gets. */
  env: Record<string, string>;
  /** Bound on one request (definition, references, …). */
  requestTimeoutMs: number;
  /** Bound on spawn + `initialize`. */
  startTimeoutMs: number;
  /** Bound on indexing: a server still reporting work after this long counts as ready. */
  readyTimeoutMs: number;
  /** A server unused this long is shut down (it starts again on the next request). */
  idleShutdownMs: number;
}

/** The whole `lsp:` section, by key. */
export type LspConfig = Map<string, LspServerConfig>;

export const LSP_DEFAULTS = {
  requestTimeoutMs: 10_000,
  startTimeoutMs: 30_000,
  readyTimeoutMs: 120_000,
  idleShutdownMs: 600_000,
} as const;

/** Servers that commonly answer for more than one file language (typescript-language-server, clangd). */
const LANGUAGE_FAMILIES: Record<string, string[]> = {
  typescript: ["typescript", "tsx", "javascript"],
  javascript: ["javascript", "typescript", "tsx"],
  tsx: ["tsx", "typescript", "javascript"],
  c: ["c", "cpp"],
  cpp: ["cpp", "c"],
};

const KEYS = new Set([
  "command",
  "languages",
  "initialization_options",
  "settings",
  "env",
  "request_timeout_ms",
  "start_timeout_ms",
  "ready_timeout_ms",
  "idle_shutdown_ms",
]);

const BOUNDS = { min: 100, max: 86_400_000 };

/**
 * Parses the `lsp:` section (`raw` is `workspace.config.raw.lsp`; undefined or null is no
 * servers). Throws `SyntaxError` "Cannot parse workspace config <source>: lsp.<key>… …".
 */
export function parseLspConfig(raw: unknown, source: string): LspConfig {
  const config: LspConfig = new Map();
  if (raw === undefined || raw === null) return config;
  const fail = (message: string): never => {
    throw new SyntaxError(`Cannot parse workspace config ${source}: ${message}`);
  };
  if (!isMapping(raw)) fail("lsp is not a mapping of language names to servers");
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const at = `lsp.${key}`;
    if (!/^[a-z][a-z0-9_+-]*$/.test(key)) fail(`${at} is not a language name`);
    if (!isMapping(value)) fail(`${at} is not a mapping`);
    const entry = value as Record<string, unknown>;
    for (const name of Object.keys(entry)) {
      if (!KEYS.has(name)) fail(`${at}.${name} is not a known key (${[...KEYS].join(", ")})`);
    }
    const command = entry.command;
    if (
      !Array.isArray(command) || command.length === 0 ||
      command.some((part) => typeof part !== "string" || part.length === 0)
    ) {
      fail(`${at}.command is not a list of strings`);
    }
    const languages = entry.languages ?? LANGUAGE_FAMILIES[key] ?? [key];
    if (!Array.isArray(languages) || languages.some((l) => typeof l !== "string")) {
      fail(`${at}.languages is not a list of strings`);
    }
    const initializationOptions = entry.initialization_options ?? {};
    if (!isMapping(initializationOptions)) fail(`${at}.initialization_options is not a mapping`);
    const settings = entry.settings ?? {};
    if (!isMapping(settings)) fail(`${at}.settings is not a mapping`);
    const env = entry.env ?? {};
    if (!isMapping(env)) fail(`${at}.env is not a mapping`);
    for (const [name, variable] of Object.entries(env as Record<string, unknown>)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        fail(`${at}.env.${name} is not an environment variable name`);
      }
      if (typeof variable !== "string") fail(`${at}.env.${name} is not a string`);
    }
    const bound = (name: string, fallback: number): number => {
      const number = entry[name] ?? fallback;
      if (
        typeof number !== "number" || !Number.isInteger(number) || number < BOUNDS.min ||
        number > BOUNDS.max
      ) {
        fail(`${at}.${name} is not a whole number of milliseconds from ${BOUNDS.min}`);
      }
      return number as number;
    };
    config.set(key, {
      key,
      languages: [...new Set(languages as string[])],
      command: command as string[],
      initializationOptions: initializationOptions as Record<string, unknown>,
      settings: settings as Record<string, unknown>,
      env: env as Record<string, string>,
      requestTimeoutMs: bound("request_timeout_ms", LSP_DEFAULTS.requestTimeoutMs),
      startTimeoutMs: bound("start_timeout_ms", LSP_DEFAULTS.startTimeoutMs),
      readyTimeoutMs: bound("ready_timeout_ms", LSP_DEFAULTS.readyTimeoutMs),
      idleShutdownMs: bound("idle_shutdown_ms", LSP_DEFAULTS.idleShutdownMs),
    });
  }
  return config;
}

/**
 * The server that answers for a file language: the one keyed by it, else the first whose
 * `languages` list it (so `tsx` files go to the `typescript` server).
 */
export function serverForLanguage(config: LspConfig, language: string): LspServerConfig | null {
  const own = config.get(language);
  if (own && own.languages.includes(language)) return own;
  for (const server of config.values()) {
    if (server.languages.includes(language)) return server;
  }
  return null;
}

function isMapping(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
