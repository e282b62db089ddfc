/**
 * The few git commands reconciliation needs. Repository configuration that
 * could run a program is switched off: fsmonitor, external diff, hooks (git
 * runs `post-index-change` when a diff refreshes the index), every transport (a
 * partial clone fetches a missing blob through `remote.*.uploadpack`), and for
 * commands that read the working tree, filter drivers. Nothing in an indexed
 * repository is ever executed.
 */
import { dirname, join, resolve } from "node:path";

const SAFE_CONFIG: [string, string][] = [
  ["core.fsmonitor", "false"],
  ["core.untrackedCache", "false"],
  ["diff.external", ""],
  ["core.hooksPath", "/dev/null"],
  ["protocol.allow", "never"],
  // A protocol's own setting wins over protocol.allow: each is refused by name as well.
  ...["file", "git", "ssh", "http", "https", "ext"].map((name): [string, string] => [
    `protocol.${name}.allow`,
    "never",
  ]),
];

/**
 * Runs git with repository-controlled programs switched off; its stdout, or null on failure.
 * Settings go through `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`, which outrank every configuration
 * file and take any key as it is (`-c` would cut a key holding `=`), and, for a git older than
 * 2.31 that reads no such variables, also as `-c` where the key holds no `=`.
 */
export async function runGit(
  root: string,
  args: string[],
  settings: readonly [string, string][] = [],
): Promise<Uint8Array | null> {
  const all = [...SAFE_CONFIG, ...settings];
  const env: Record<string, string> = {
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_COUNT: String(all.length),
  };
  all.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  try {
    const output = await new Deno.Command("git", {
      args: [
        ...all.filter(([key]) => !key.includes("=")).flatMap((
          [key, value],
        ) => ["-c", `${key}=${value}`]),
        ...args,
      ],
      cwd: root,
      stdout: "piped",
      stderr: "null",
      env,
    }).output();
    return output.success ? output.stdout : null;
  } catch {
    return null;
  }
}

/**
 * Runs git on a command that reads working-tree content (`git diff HEAD`): with every
 * filter driver the configuration names emptied as well. git runs a file's clean filter
 * (`filter.<driver>.clean`, or its long-running `process`) when it compares content whose
 * stat data changed, and a repository's own `.git/config` may name any program there.
 */
export async function runGitOnWorkTree(root: string, args: string[]): Promise<Uint8Array | null> {
  return await runGit(root, args, await filtersOff(root));
}

/** Settings that empty every configured filter driver (none without git or filters). */
async function filtersOff(root: string): Promise<[string, string][]> {
  const out = await runGit(root, ["config", "--null", "--name-only", "--get-regexp", "^filter\\."]);
  if (out === null) return [];
  const drivers = new Set<string>();
  for (const key of new TextDecoder().decode(out).split("\0")) {
    // `filter.<driver>.<key>`: the driver's name may hold dots (or `=`), the key is the last part.
    const driver = /^filter\.(.+)\.[^.]+$/s.exec(key)?.[1];
    if (driver) drivers.add(driver);
  }
  return [...drivers].flatMap((driver) =>
    [["clean", ""], ["smudge", ""], ["process", ""], ["required", "false"]].map((
      [key, value],
    ): [string, string] => [`filter.${driver}.${key}`, value])
  );
}

/** True when `root` is inside a git work tree and git is installed. */
export async function isGitWorkTree(root: string): Promise<boolean> {
  const out = await runGit(root, ["rev-parse", "--is-inside-work-tree"]);
  return out !== null && new TextDecoder().decode(out).trim() === "true";
}

/** The work tree's top-level directory, or null outside git. */
export async function gitTopLevel(dir: string): Promise<string | null> {
  const out = await runGit(dir, ["rev-parse", "--show-toplevel"]);
  return out === null ? null : new TextDecoder().decode(out).trim();
}

/**
 * HEAD's commit id, or null (no git, no commits). Read from the repository's files when they
 * say it plainly (`headFromFiles`), else from `git rev-parse`: every refresh asks, and on sympy
 * the process cost a no-op refresh ~10 ms of its ~60 (its start on the main thread, and a core
 * shared with `git ls-files`).
 */
export async function gitHead(root: string): Promise<string | null> {
  const read = headFromFiles(root);
  if (read !== undefined) return read;
  const out = await runGit(root, ["rev-parse", "--verify", "-q", "HEAD"]);
  const head = out === null ? "" : new TextDecoder().decode(out).trim();
  return head === "" ? null : head;
}

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The environment variables that move where git finds a repository or what it reads there. */
const REPOSITORY_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_DEFAULT_REF_FORMAT",
];

/**
 * HEAD's commit id as the files of the repository's git directory give it, or undefined when
 * only git can tell (undefined is never a guess). Read: the `.git` directory or `gitdir:` file
 * of `root` or a directory above it on the same device, a linked worktree's `commondir`, a
 * detached HEAD, or a branch's loose or packed ref. Anything else is git's to answer: a
 * variable that moves the repository (`REPOSITORY_VARIABLES`), a `.git` that is a symlink, a
 * git directory or work tree another user owns (git refuses those), another reference storage
 * than files (`extensions.refStorage`), a HEAD naming anything but `refs/heads/…`, an unborn
 * branch, an unreadable file.
 */
export function headFromFiles(root: string): string | null | undefined {
  try {
    if (REPOSITORY_VARIABLES.some((name) => Deno.env.get(name) !== undefined)) return undefined;
    const uid = Deno.uid();
    const top = Deno.realPathSync(root);
    const device = Deno.statSync(top).dev;
    let workTree = top;
    let dotGit: Deno.FileInfo | null = null;
    for (;;) {
      try {
        dotGit = Deno.lstatSync(join(workTree, ".git"));
        break;
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) return undefined;
      }
      const parent = dirname(workTree);
      if (parent === workTree || Deno.statSync(parent).dev !== device) return undefined;
      workTree = parent;
    }
    let gitDir = join(workTree, ".git");
    if (dotGit.isFile) {
      const pointer = /^gitdir: (.+)$/m.exec(Deno.readTextFileSync(gitDir))?.[1].trim();
      if (!pointer) return undefined;
      gitDir = resolve(workTree, pointer);
    } else if (!dotGit.isDirectory) return undefined;
    let commonDir = gitDir;
    try {
      commonDir = resolve(gitDir, Deno.readTextFileSync(join(gitDir, "commondir")).trim());
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) return undefined;
    }
    for (const owned of [workTree, gitDir, commonDir]) {
      if (Deno.statSync(owned).uid !== uid) return undefined;
    }
    if (/refstorage/i.test(Deno.readTextFileSync(join(commonDir, "config")))) return undefined;
    const head = Deno.readTextFileSync(join(gitDir, "HEAD")).trim();
    if (OBJECT_ID.test(head)) return head;
    const ref = /^ref: (refs\/heads\/\S+)$/.exec(head)?.[1];
    if (!ref || ref.split("/").some((part) => part === "" || part === "." || part === "..")) {
      return undefined;
    }
    try {
      const loose = Deno.readTextFileSync(join(commonDir, ref)).trim();
      return OBJECT_ID.test(loose) ? loose : undefined;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) return undefined;
    }
    const packed = Deno.readTextFileSync(join(commonDir, "packed-refs"));
    for (const line of packed.split("\n")) {
      const space = line.indexOf(" ");
      if (line.slice(space + 1).trimEnd() === ref && OBJECT_ID.test(line.slice(0, space))) {
        return line.slice(0, space);
      }
    }
    return undefined;
  } catch {
    return undefined;
  }
}

/** Tracked plus untracked-not-ignored paths under `root`, or null without git. */
export async function gitListFiles(root: string): Promise<string[] | null> {
  // Paths come relative to `root` (the working directory), even below the top level.
  const out = await runGit(root, ["ls-files", "-co", "--exclude-standard", "-z"]);
  if (out === null) return null;
  return new TextDecoder().decode(out).split("\0").filter((p) => p !== "");
}

/** Renames between two commits as new path → old path (`git diff --name-status -M`). */
export async function gitRenames(
  root: string,
  from: string,
  to: string,
): Promise<Map<string, string>> {
  const renames = new Map<string, string>();
  const out = await runGit(root, [
    "diff",
    "--no-ext-diff",
    "--no-textconv",
    "--name-status",
    "-M",
    "-z",
    "--relative",
    from,
    to,
  ]);
  if (out === null) return renames;
  const fields = new TextDecoder().decode(out).split("\0");
  for (let i = 0; i < fields.length;) {
    const status = fields[i];
    if (status === "") break;
    if (status.startsWith("R") || status.startsWith("C")) {
      if (status.startsWith("R")) renames.set(fields[i + 2], fields[i + 1]);
      i += 3;
    } else {
      i += 2;
    }
  }
  return renames;
}
