/** Bash: definitions, relations, ids and syntax errors through the public surface. */
import {
  checkChunkBoundaries,
  checkFixture,
  checkIdStability,
  checkSyntaxRecovery,
} from "./_lang_fixture.ts";

const SOURCE = `#!/usr/bin/env bash
source ./lib/common.sh
# ^ imports: ./lib/common.sh module=./lib/common.sh
. "$HOME/.config/build.sh"
# ^ imports: $HOME/.config/build.sh
# ^ reads: HOME
export PATH="/opt/bin:$PATH"
# ^ def: PATH variable
# ^ writes: PATH
COUNT=0
# ^ def: COUNT variable
# ^ writes: COUNT

# Builds one target.
build() {
# ^ def: build function
  local target="$1"
  compile "$target" --fast
  # ^ calls: compile from=build
  # ^ reads: target from=build
  COUNT=$((COUNT + 1))
  # ^ writes: COUNT from=build
  # ^ reads: COUNT
}

function deploy {
# ^ def: deploy function
  build "$@" | tee log.txt
  # ^ calls: build from=deploy
  # ^ calls: tee from=deploy
  declare -g RESULT=ok
  # ^ writes: RESULT from=deploy
}

deploy prod
# ^ calls: deploy receiver=- from=-
`;

Deno.test("bash: definitions and relations of a fixture", async () => {
  await checkFixture({ "scripts/build.sh": SOURCE }, {
    exhaustiveKinds: ["function", "variable"],
    exhaustiveRelations: ["imports", "writes"],
  });
});

Deno.test("bash: conditionals over expansions parse (the scanner's isalpha import)", async () => {
  await checkFixture({
    "check.sh":
      'check() {\n# ^ def: check function\n  case "${MODE-}" in\n    fast) run ;;\n    # ^ calls: run\n  esac\n  if [ "${X}" != a ]; then\n    finish\n    # ^ calls: finish\n  fi\n}\n',
  });
});

Deno.test("bash: .bashrc is Bash", async () => {
  await checkFixture({ ".bashrc": "greet() {\n# ^ def: greet function\n  echo hi\n}\n" });
});

Deno.test("bash: a file with a syntax error keeps what tree-sitter recovers", async () => {
  const good = "fine() {\n  compute 1 2\n}\n\nother() {\n  echo 2\n}\n\nthird() {\n  echo 3\n}\n";
  await checkSyntaxRecovery({
    path: "broken.sh",
    source: good + "\nfoo() {\n  echo )\n}\n",
    symbol: "fine",
  });
});

Deno.test("bash: a symbol's id survives an edit above it", async () => {
  const source = "total() {\n  echo 1\n}\n";
  await checkIdStability({
    path: "run.sh",
    before: source,
    after: "added() {\n  echo 0\n}\n\n" + source,
    symbol: "total",
  });
});

Deno.test("bash: a long function splits and keeps its comment", async () => {
  const body = Array.from({ length: 120 }, (_, i) => `  value${i}=$(compute ${i} "padding text")`)
    .join("\n");
  await checkChunkBoundaries({
    path: "long.sh",
    source: `#!/bin/sh\n\n# Does a lot.\nrun() {\n${body}\n}\n`,
    symbol: "run",
    firstLine: 3,
    bodyLine: 4,
  });
});
