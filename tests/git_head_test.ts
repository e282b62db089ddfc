/**
 * HEAD is read from the git directory's files where they say it plainly, and from `git
 * rev-parse` otherwise: on real repositories of every layout the file reading gives git's own
 * answer, and it leaves to git every case it does not read.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { gitHead, headFromFiles } from "../src/indexer/git.ts";
import { commit, fixtureRepository, git, tempDirectory } from "./_helpers.ts";

/** What git itself says HEAD is in `cwd`. */
function revParse(cwd: string): string {
  return git(cwd, "rev-parse", "--verify", "-q", "HEAD").trim();
}

/** The file reading answers, and answers what git answers. */
async function assertReadAsGit(root: string, what: string): Promise<void> {
  const read = headFromFiles(root);
  assert.notEqual(read, undefined, `${what}: read from the files, not left to git`);
  assert.equal(read, revParse(root), what);
  assert.equal(await gitHead(root), revParse(root), what);
}

Deno.test("HEAD is read from a branch's loose ref, then from packed-refs, and follows new commits", async () => {
  const root = fixtureRepository({ "a.py": "x = 1\n" });
  await assertReadAsGit(root, "loose ref");
  git(root, "pack-refs", "--all");
  assert.throws(() => Deno.statSync(join(root, ".git", "refs", "heads", currentBranch(root))));
  await assertReadAsGit(root, "packed ref");
  commit(root, "second");
  await assertReadAsGit(
    root,
    "a commit after packing (a loose ref again, ahead of the packed one)",
  );
  git(root, "checkout", "-q", "--detach");
  commit(root, "detached");
  await assertReadAsGit(root, "detached HEAD");
});

Deno.test("HEAD is read for a subdirectory, a linked worktree and a separate git directory", async () => {
  const root = fixtureRepository({ "pkg/mod.py": "y = 2\n" });
  await assertReadAsGit(join(root, "pkg"), "a root below the work tree's top");

  const worktree = join(tempDirectory({ prefix: "sextant-worktree-" }), "wt");
  git(root, "worktree", "add", "-q", "-b", "other", worktree);
  commit(worktree, "on the worktree's branch");
  await assertReadAsGit(worktree, "linked worktree (gitdir file, commondir)");
  assert.notEqual(headFromFiles(worktree), headFromFiles(root), "each worktree has its own HEAD");

  const separate = tempDirectory({ prefix: "sextant-separate-" });
  const gitDir = join(tempDirectory({ prefix: "sextant-gitdir-" }), "repo.git");
  git(separate, "init", "-q", `--separate-git-dir=${gitDir}`);
  commit(separate, "first");
  await assertReadAsGit(separate, "separate git directory (gitdir file)");
});

Deno.test("HEAD is left to git where the files do not say it plainly", async () => {
  // An unborn branch: git says there is no HEAD.
  const unborn = Deno.realPathSync(tempDirectory({ prefix: "sextant-unborn-" }));
  git(unborn, "init", "-q");
  assert.equal(headFromFiles(unborn), undefined);
  assert.equal(await gitHead(unborn), null);

  // Another reference storage than files.
  const reftable = fixtureRepository({ "a.py": "x = 1\n" });
  git(reftable, "config", "extensions.refStorage", "reftable");
  assert.equal(headFromFiles(reftable), undefined);

  // A `.git` that is a symlink.
  const real = fixtureRepository({ "a.py": "x = 1\n" });
  const linked = Deno.realPathSync(tempDirectory({ prefix: "sextant-linked-" }));
  Deno.symlinkSync(join(real, ".git"), join(linked, ".git"));
  assert.equal(headFromFiles(linked), undefined);

  // A variable that moves the repository git reads, set in a child process: the environment is
  // the whole process's, and the test modules running beside this one start git meanwhile (one
  // of them once ran `git init` while this test had set it, and initialised the wrong repository).
  const moved = fixtureRepository({ "a.py": "x = 1\n" });
  const elsewhere = fixtureRepository({ "b.py": "y = 2\n" });
  commit(elsewhere, "another history");
  const module = new URL("../src/indexer/git.ts", import.meta.url).href;
  const probe = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { gitHead, headFromFiles } from ${JSON.stringify(module)};
       const root = ${JSON.stringify(moved)};
       console.log(JSON.stringify({ files: headFromFiles(root) ?? "undefined", git: await gitHead(root) }));`,
    ],
    env: { GIT_DIR: join(elsewhere, ".git") },
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  assert.ok(probe.success, new TextDecoder().decode(probe.stderr));
  const seen = JSON.parse(new TextDecoder().decode(probe.stdout));
  assert.deepEqual(seen, { files: "undefined", git: revParse(elsewhere) });
  assert.equal(headFromFiles(moved), revParse(moved));

  // No repository at all (outside any work tree).
  const plain = Deno.realPathSync(tempDirectory({ prefix: "sextant-plain-" }));
  if (!isInsideWorkTree(plain)) {
    assert.equal(headFromFiles(plain), undefined);
    assert.equal(await gitHead(plain), null);
  }
});

function currentBranch(root: string): string {
  return git(root, "symbolic-ref", "--short", "HEAD").trim();
}

function isInsideWorkTree(dir: string): boolean {
  return new Deno.Command("git", { args: ["rev-parse"], cwd: dir, stdout: "null", stderr: "null" })
    .outputSync().success;
}
