/** The serving processes start with the same V8 flags from every launch command. */
import assert from "node:assert/strict";
import { SERVING_V8_FLAGS, v8FlagsArgument } from "../scripts/_serving_flags.ts";

Deno.test("deno.json: the daemon, query and mcp tasks carry the serving V8 flags", () => {
  const config = JSON.parse(Deno.readTextFileSync(new URL("../deno.json", import.meta.url)));
  const [argument] = v8FlagsArgument(SERVING_V8_FLAGS);
  for (const task of ["daemon", "query", "mcp"]) {
    const words = (config.tasks[task] as string).split(/\s+/);
    assert.ok(words.includes(argument), `${task}: ${config.tasks[task]}`);
    // Flags after the script name would be the program's arguments, not deno's.
    assert.ok(words.indexOf(argument) < words.indexOf("src/main.ts"), task);
  }
});
