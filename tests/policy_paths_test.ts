/**
 * A hidden path answers exactly like a missing one (real daemon, real socket,
 * real files): the same agent, limited to `src/**` of one repository, asks the
 * same questions of two workspaces — one whose repository also holds hidden
 * files (a secret directory, root manifests, a Python file, a symlink and a
 * hard link into them), and one where those files do not exist — and every
 * answer must be byte-identical: results, scores, confidence features, counts,
 * languages, messages, errors, generations, cursors and its own counters.
 * Then a hidden file is edited in one world only, then a visible file in both,
 * and everything is asked again.
 */
// Answers are untyped JSON read back from the socket.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { join } from "node:path";
import { DaemonClient, RpcFailure } from "../src/daemon/client.ts";
import { METHODS } from "../src/protocol/methods.ts";
import {
  fixtureRepository,
  git,
  startDaemon,
  tempCache,
  tempDirectory,
  writeFiles,
} from "./_helpers.ts";

/** Files the limited agent may see, in both worlds. */
const VISIBLE = {
  "src/main.ts": `import { helper } from "./util";
import { Vault } from "../secret/hidden";
import { config } from "@app/config";

/** The entry point: giraffe counts. */
export function alphaMain(): number {
  const giraffe = helper(1);
  return giraffe + new Vault().open() + config.size;
}

export class Widget {
  render(): string {
    return "giraffe " + helper(2);
  }
}
`,
  "src/util.ts": `/** Adds one; giraffe zebra. */
export function helper(n: number): number {
  return n + 1;
}

export function unusedHelper(): number {
  return helper(3);
}
`,
  "src/notes.md": "# Notes\n\nThe giraffe and the zebra share a helper.\n",
};

/** Files only the hidden world holds (the agent may see none of them). */
const HIDDEN = {
  "secret/hidden.ts": `export class SecretVault {
  zanzibarSecretWord = "giraffe";
  open(): number {
    return helperOfSecrets();
  }
}

export class Vault {
  open(): number {
    return 1;
  }
}

function helperOfSecrets(): number {
  return 42;
}
`,
  "secret/tool.py":
    "def alphaMain():\n    return 'zanzibar giraffe'\n\n\nclass SecretVault:\n    pass\n",
  "secret/giraffes.ts": Array.from(
    { length: 12 },
    (_, i) => `export const giraffe${i} = "giraffe zanzibar helper";\n`,
  ).join(""),
  "secret/server.pem":
    "-----BEGIN PRIVATE KEY-----\nzanzibarKeyMaterial\n-----END PRIVATE KEY-----\n",
  "package.json": `{ "name": "alpha", "workspaces": ["secret"] }\n`,
  "tsconfig.json": `{ "compilerOptions": { "paths": { "@app/*": ["secret/*"] } } }\n`,
  "secret/config.ts": "export const config = { size: 3 };\n",
  ".env": "SECRET=zanzibarEnvValue\n",
};

const BETA = {
  "lib/beta.ts": `export function betaHelper(): string {
  return "giraffe from beta";
}
`,
};

const TOKENS = { limited: "limited-token-abc", admin: "admin-token-xyz" };

/** One shape of path rule: what the agent may see, what it may not, and how a hidden file changes. */
interface Scenario {
  name: string;
  /** The agent's globs for alpha. */
  paths: string[];
  visible: Record<string, string>;
  hidden: Record<string, string>;
  /** Files written in the hidden world only, between the first and second phase. */
  hiddenEdit: Record<string, string>;
  /** Strings only hidden files hold (no visible file writes them). */
  secrets: string[];
}

/** Every file of both sets, sorted into what `filter` keeps and what it does not. */
function split(filter: (path: string) => boolean) {
  const all: Record<string, string> = { ...VISIBLE, ...HIDDEN };
  const visible: Record<string, string> = {};
  const hidden: Record<string, string> = {};
  for (const [path, text] of Object.entries(all)) (filter(path) ? visible : hidden)[path] = text;
  return { visible, hidden };
}

const SCENARIOS: Scenario[] = [
  {
    name: "a directory (src/**)",
    paths: ["src/**"],
    ...split((path) => path.startsWith("src/")),
    hiddenEdit: {
      "secret/hidden.ts": HIDDEN["secret/hidden.ts"] + "export const more = 'zanzibar giraffe';\n",
      "secret/extra.ts": "export function helper(): string {\n  return 'giraffe';\n}\n",
    },
    secrets: ["zanzibar", "SecretVault", "hidden.ts", "helperOfSecrets", "giraffes", "tool.py"],
  },
  {
    name: "a file type (**/*.ts)",
    paths: ["**/*.ts"],
    ...split((path) => path.endsWith(".ts")),
    hiddenEdit: {
      "secret/tool.py": HIDDEN["secret/tool.py"] + "\ndef helper():\n    return 'giraffe'\n",
      "docs/extra.md": "# giraffe helper\n\nzebra zebra giraffe\n",
    },
    secrets: ["tool.py", "notes.md", "The giraffe and the zebra", "zanzibarKeyMaterial"],
  },
];

/** One world: its workspace directory and the alpha repository's root. */
interface World {
  workspace: string;
  alpha: string;
  cache: string;
}

function makeWorld(scenario: Scenario, hidden: boolean, beta: string): World {
  const files = hidden ? { ...scenario.visible, ...scenario.hidden } : scenario.visible;
  const alpha = fixtureRepository(files, { git: false });
  // Links into the hidden part (dangling where it does not exist): never indexed.
  Deno.symlinkSync("../secret/hidden.ts", join(alpha, "src/link.ts"));
  Deno.symlinkSync("../.env", join(alpha, "src/notes.txt"));
  Deno.symlinkSync("../secret", join(alpha, "src/vault"));
  // A hard link is another name of the same (hidden) file: in the missing world it is missing too.
  if (hidden) Deno.linkSync(join(alpha, "secret/server.pem"), join(alpha, "src/key.txt"));
  git(alpha, "init", "-q");
  git(alpha, "add", "-A");
  git(alpha, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "fixture");
  const workspace = tempDirectory({ prefix: "sextant-ws-" });
  Deno.writeTextFileSync(
    join(workspace, "sextant.yml"),
    `repositories:
  - name: alpha
    path: ${alpha}
  - name: beta
    path: ${beta}
project_siblings:
  - [alpha, beta]
agents:
  limited:
    token_env: LIMITED_TOKEN
    repositories: [alpha, beta]
    paths: { alpha: ${JSON.stringify(scenario.paths)} }
  admin:
    token_env: ADMIN_TOKEN
    repositories: "*"
`,
  );
  return { workspace, alpha, cache: tempCache() };
}

/** Every question the agent asks, per phase (the same list in both worlds). */
function questions(): { method: string; params: Record<string, unknown> }[] {
  const out: { method: string; params: Record<string, unknown> }[] = [];
  const add = (method: string, params: Record<string, unknown>) => out.push({ method, params });
  const queries = [
    "zanzibarSecretWord",
    "giraffe zanzibar",
    "giraffe qwertyzz",
    "giraffe",
    "SecretVault",
    "helper giraffe zebra",
    "alphaMain Vault open",
    'Traceback: File "secret/hidden.ts", line 3, in open',
  ];
  for (const query of queries) {
    add("search", { query });
    add("search", { query, strategy: "lexical" });
    add("search", { query, strategy: "vector" });
    add("search", { query, limit: 1 });
    add("search", { query, repo: "alpha", paths: ["secret/**"] });
    add("search", { query, repo: "alpha", kind: "doc" });
  }
  const patterns = ["alphaMain()", "helper($N)", "zzzq", "$F($$$A)", "new $C()"];
  const globs = [
    undefined,
    ["secret/hidden.*"],
    ["secret/hiddez.*"],
    ["secret/hidden.ts"],
    ["src/**"],
    ["**/*.py"],
  ];
  for (const pattern of patterns) {
    for (const paths of globs) add("grep", paths ? { pattern, paths } : { pattern });
    add("grep", { pattern, language: "python" });
    add("grep", { pattern, language: "typescript", limit: 1 });
  }
  for (const query of ["SecretVault", "Vault", "alphaMain", "helper", "Widget", "giraffe", "a"]) {
    add("symbols", { query });
    add("symbols", { query, limit: 1 });
  }
  const navigation = ["definition", "references", "callers", "callees", "impact", "neighborhood"];
  const symbols = [
    "alphaMain",
    "helper",
    "Vault",
    "SecretVault",
    "open",
    "config",
    "Widget.render",
  ];
  for (const method of navigation) {
    for (const symbol of symbols) add(method, { symbol });
    add(method, { symbol: "helper", limit: 1 });
    add(method, { path: "src/main.ts", line: 8, column: 26 }); // `Vault` in `new Vault()`
    add(method, { path: "src/main.ts", line: 8, column: 42 }); // `config`
    add(method, { path: "src/main.ts", line: 7, column: 19 }); // `helper`
    add(method, { path: "secret/hidden.ts", line: 3, column: 3 });
    add(method, { path: "src/link.ts", line: 1, column: 14 });
    add(method, { path: "src/vault/hidden.ts", line: 1, column: 14 });
  }
  add("impact", { diff: true });
  if ("map" in METHODS) {
    add("map", {});
    add("map", { limit: 2 });
    add("map", { focus: "src/main.ts" });
    add("map", { focus: "secret/hidden.ts" });
    add("map", { focus: "alphaMain" });
    add("map", { role: "onboarding" });
    add("map", { uncommitted: true });
    add("map", { paths: ["secret/**"] });
  }
  if ("outline" in METHODS) {
    for (const path of ["src/main.ts", "src/util.ts", "secret/hidden.ts", "secret/absent.ts"]) {
      add("outline", { path });
    }
    add("outline", {});
    add("outline", { depth: 1, limit: 1 });
  }
  if ("context" in METHODS) {
    for (const query of ["giraffe helper", "zanzibar vault", "alphaMain Vault open"]) {
      add("context", { query });
      add("context", { query, token_budget: 200 });
    }
    add("context", { symbols: ["helper", "SecretVault", "Vault", "alphaMain"] });
  }
  if ("verify" in METHODS) {
    const citations = [
      { path: "src/main.ts", start_line: 6, end_line: 9, symbol: "alphaMain" },
      { path: "src/util.ts", start_line: 2, text: "return n + 1;" },
      { path: "secret/hidden.ts", start_line: 1, symbol: "SecretVault" },
      { path: "secret/absent.ts", start_line: 1, symbol: "SecretVault" },
      { path: "src/main.ts", claim: "alphaMain calls helper" },
      { path: "src/main.ts", claim: "alphaMain calls open" },
      { path: "src/link.ts", start_line: 1 },
    ];
    add("verify", { citations });
    for (const citation of citations) add("verify", { citations: [citation] });
  }
  add("neighborhood", { symbol: "alphaMain", format: "mermaid" });
  add("status", {});
  add("status", { repo: "alpha" });
  for (const method of ["search", "symbols", "grep", "definition", "status"]) {
    assert.ok(method in METHODS, method);
  }
  return out;
}

/** An answer without what differs between two identical requests (trace ids, timings, roots). */
function comparable(value: unknown, world: World): string {
  const drop = new Set([
    "trace_id",
    "elapsed_ms",
    "uptime_s",
    "started_at",
    "timings_ms",
    "id",
    "pid",
    // Refresh durations of the repository it sees whole (beta).
    "last_ms",
    "max_ms",
    "total_ms",
    // The dependency index of the repository it sees whole (beta): when and how long.
    "ms",
    "index_ms",
    "refreshed_at",
  ]);
  return JSON.stringify(value, (key, item) => drop.has(key) ? undefined : item)
    .replaceAll(world.alpha, "<alpha>")
    .replaceAll(world.workspace, "<workspace>")
    .replaceAll(world.cache, "<cache>");
}

async function ask(client: DaemonClient, method: string, params: unknown) {
  const progress: unknown[] = [];
  try {
    const result = await client.request(method, params, {
      onProgress: (event) => {
        if (event.repo === "alpha") progress.push(event);
      },
    });
    return { result, progress };
  } catch (error) {
    assert.ok(error instanceof RpcFailure, `${method}: ${error}`);
    return { error: { code: error.code, message: error.message, data: error.data }, progress };
  }
}

/** Runs the whole conversation in one world; returns every answer, in order. */
async function converse(
  scenario: Scenario,
  world: World,
  hidden: boolean,
): Promise<{ label: string; text: string }[]> {
  const daemon = await startDaemon({
    workspace: world.workspace,
    cache: world.cache,
    env: { LIMITED_TOKEN: TOKENS.limited, ADMIN_TOKEN: TOKENS.admin },
  });
  const admin = await DaemonClient.connect(daemon.socket);
  const limited = await DaemonClient.connect(daemon.socket);
  const answers: { label: string; text: string }[] = [];
  const record = (label: string, value: unknown) =>
    answers.push({ label, text: comparable(value, world) });
  try {
    await admin.request("initialize", { agent: "admin", token: TOKENS.admin });
    await admin.request("refresh", {});
    record(
      "initialize",
      await ask(limited, "initialize", { agent: "limited", token: TOKENS.limited }),
    );
    const cursors: { label: string; method: string; params: Record<string, unknown> }[] = [];
    const phase = async (name: string) => {
      for (const { method, params } of questions()) {
        const label = `${name} ${method} ${JSON.stringify(params)}`;
        const reply: any = await ask(limited, method, params);
        record(label, reply);
        // Follow one page further, and keep the cursor for the next phase.
        const cursor = reply.result?.next_cursor;
        if (typeof cursor === "string") {
          record(`${label} page 2`, await ask(limited, method, { ...params, cursor }));
          cursors.push({ label, method, params: { ...params, cursor } });
        }
      }
      record(`${name} status`, await ask(limited, "status", {}));
    };
    await phase("A");
    // A hidden file changes in the hidden world only; nothing the agent sees changes.
    if (hidden) writeFiles(world.alpha, scenario.hiddenEdit);
    await admin.request("refresh", {});
    // Cursors issued before the hidden edit still continue (or fail) alike.
    for (const { label, method, params } of cursors.splice(0)) {
      record(`B cursor of ${label}`, await ask(limited, method, params));
    }
    await phase("B");
    // A visible file changes in both worlds.
    writeFiles(world.alpha, {
      "src/util.ts": VISIBLE["src/util.ts"] + "export const giraffeCount = helper(4);\n",
    });
    await admin.request("refresh", {});
    for (const { label, method, params } of cursors.splice(0)) {
      record(`C cursor of ${label}`, await ask(limited, method, params));
    }
    await phase("C");
    // Its own refresh and rebuild, with their progress: told only what it may see.
    record("refresh", await ask(limited, "refresh", {}));
    if (hidden) {
      const again = Object.keys(scenario.hiddenEdit).map((path) => [path, "export const x = 1;\n"]);
      writeFiles(world.alpha, Object.fromEntries(again));
    }
    record("refresh alpha", await ask(limited, "refresh", { repo: "alpha" }));
    record("search refresh", await ask(limited, "search", { query: "giraffe", refresh: true }));
    record("rebuild alpha", await ask(limited, "rebuild", { repo: "alpha" }));
    await phase("D");
  } finally {
    admin.close();
    limited.close();
    await daemon.stop();
  }
  return answers;
}

for (const scenario of SCENARIOS) {
  Deno.test(`policy (real socket): for an agent limited to ${scenario.name}, hidden paths answer exactly like missing ones — every action, counts, scores and messages included`, async () => {
    const beta = fixtureRepository(BETA);
    const hiddenWorld = makeWorld(scenario, true, beta);
    const missingWorld = makeWorld(scenario, false, beta);
    const withHidden = await converse(scenario, hiddenWorld, true);
    const withoutHidden = await converse(scenario, missingWorld, false);
    const dump = Deno.env.get("SEXTANT_SWEEP_DUMP");
    if (dump) {
      Deno.writeTextFileSync(`${dump}.hidden.json`, JSON.stringify(withHidden, null, 1));
      Deno.writeTextFileSync(`${dump}.missing.json`, JSON.stringify(withoutHidden, null, 1));
    }
    // The same conversation in both worlds: every label once, answered alike.
    const hiddenAnswers = new Map(withHidden.map((answer) => [answer.label, answer.text]));
    const missingAnswers = new Map(withoutHidden.map((answer) => [answer.label, answer.text]));
    assert.equal(hiddenAnswers.size, withHidden.length, "labels are unique");
    const labels = [...new Set([...hiddenAnswers.keys(), ...missingAnswers.keys()])];
    const differences: string[] = [];
    for (const label of labels) {
      const a = hiddenAnswers.get(label) ?? "(not asked)";
      const b = missingAnswers.get(label) ?? "(not asked)";
      if (a === b) continue;
      let at = 0;
      while (at < a.length && a[at] === b[at]) at++;
      const from = Math.max(0, at - 300);
      differences.push(
        `${label} (from character ${from})\n  hidden:  ${a.slice(from, at + 600)}\n  missing: ${
          b.slice(from, at + 600)
        }`,
      );
    }
    console.log(
      `hidden-vs-missing comparisons (agent limited to ${scenario.name}): ${labels.length}, ${
        labels.length - differences.length
      } identical`,
    );
    assert.equal(differences.length, 0, `${differences.length} differ:\n${differences.join("\n")}`);
    for (const answer of withHidden) {
      for (const secret of scenario.secrets) {
        if (answer.label.includes(secret)) continue;
        assert.ok(
          !answer.text.includes(secret),
          `${answer.label} leaks '${secret}': ${answer.text}`,
        );
      }
    }
  });
}
