/**
 * A small Python package for the agent actions (map, outline, context,
 * verify): an entry point, a CLI, a core module, helpers every module uses, a
 * retry module, a secret module some agents may not see, and a test.
 */
import { join } from "node:path";
import { fixtureRepository, tempDirectory } from "./_helpers.ts";

/** A string only the body of `retry_with_backoff` holds (never a signature or doc). */
export const BODY_MARKER = "bodyOnlyMarkerK7";
/** A string only the value of a module-level constant holds (never its name or annotation). */
export const VALUE_MARKER = "valueMarkerQ8";
/** A string only the secret module holds. */
export const SECRET_MARKER = "vaultSecretMarkerZ9";

export const AGENT_FILES: Record<string, string> = {
  "pkg/__init__.py": '"""Demo package: configuration parsing and retries."""\n' +
    "from .core import parse_config, Config\nfrom .retry import retry_with_backoff\n",
  "pkg/__main__.py": "from .cli import main\n\nmain()\n",
  "pkg/cli.py": '"""Command-line interface of the demo."""\nimport sys\n\n' +
    "from .core import parse_config\nfrom .util import read_text\n\n\n" +
    "def main(argv=None):\n" +
    '    """Run the demo on a configuration file."""\n' +
    "    args = argv or sys.argv[1:]\n" +
    "    config = parse_config(args[0])\n" +
    "    print(read_text(args[0]))\n" +
    '    return config.get("name")\n',
  "pkg/core.py":
    '"""Core configuration handling."""\nfrom .util import read_text, split_pairs\n\n\n' +
    "class Config:\n" +
    '    """A parsed configuration."""\n\n' +
    "    def __init__(self, values):\n" +
    "        self.values = values\n\n" +
    "    def get(self, key):\n" +
    '        """Return one value."""\n' +
    "        return self.values.get(key)\n\n\n" +
    "def parse_config(path):\n" +
    '    """Parse a configuration file into a Config."""\n' +
    "    text = read_text(path)\n" +
    "    return Config(split_pairs(text))\n",
  "pkg/util.py": '"""Small helpers shared by every module."""\n\n\n' +
    "def read_text(path):\n" +
    '    """Read a file as text."""\n' +
    "    with open(path) as handle:\n" +
    "        return handle.read()\n\n\n" +
    "def split_pairs(text):\n" +
    '    """Split key=value lines into a dict."""\n' +
    '    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)\n',
  "pkg/retry.py": '"""Retry helpers."""\nimport time\n\nfrom .util import read_text\n\n' +
    `BACKOFF_NAME: str = "${VALUE_MARKER}"\n\n\n` +
    "def retry_with_backoff(call, attempts=3):\n" +
    '    """Retry a call with exponential backoff."""\n' +
    `    ${BODY_MARKER} = 0.1\n` +
    "    for attempt in range(attempts):\n" +
    "        try:\n" +
    "            return call()\n" +
    "        except OSError:\n" +
    `            time.sleep(${BODY_MARKER} * 2 ** attempt)\n` +
    '    return read_text("fallback.txt")\n',
  "pkg/secret/vault.py": '"""The vault."""\nfrom ..util import read_text\n\n\n' +
    "def open_vault(path):\n" +
    '    """Open the vault."""\n' +
    `    ${SECRET_MARKER} = read_text(path)\n` +
    `    return ${SECRET_MARKER}\n`,
  "tests/test_core.py": "from pkg.core import parse_config\n\n\n" +
    "def test_parse(tmp_path):\n" +
    '    path = tmp_path / "a.cfg"\n' +
    '    path.write_text("name=demo")\n' +
    '    assert parse_config(str(path)).get("name") == "demo"\n',
  "README.md": "# Demo\n\nA demo package that parses configuration and retries calls.\n",
};

/** A git repository holding the agent fixture. */
export function agentRepository(): string {
  return fixtureRepository(AGENT_FILES);
}

/**
 * A workspace of the agent fixture with agents: one that sees everything (`owner`), a
 * path-limited one (`limited`) and a summary-mode one (`pm`); tokens from the environment.
 */
export function agentWorkspace(): string {
  const repo = agentRepository();
  const workspace = tempDirectory({ prefix: "sextant-agent-ws-" });
  Deno.writeTextFileSync(
    join(workspace, "sextant.yml"),
    `repositories:
  - name: demo
    path: ${repo}
agents:
  limited:
    token_env: LIMITED_TOKEN
    repositories: [demo]
    paths: { demo: ["pkg/*.py", "tests/**", "README.md"] }
  owner:
    token_env: OWNER_TOKEN
    repositories: "*"
  pm:
    token_env: SUMMARY_TOKEN
    repositories: "*"
    mode: summary
`,
  );
  return workspace;
}

/** The 1-based line of the first line holding `text` in a fixture file. */
export function lineOf(path: string, text: string): number {
  return AGENT_FILES[path].split("\n").findIndex((line) => line.includes(text)) + 1;
}
