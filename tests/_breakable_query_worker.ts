/**
 * A query Worker that fails while loading whenever the file named by the environment variable
 * `SEXTANT_TEST_UNSTARTABLE` exists, as a Worker of a broken installation would. Loaded, it
 * answers `echo` with its params and fails as a whole (an uncaught error) on `crash`.
 */
import { existsSync } from "node:fs";

const marker = Deno.env.get("SEXTANT_TEST_UNSTARTABLE");
if (marker && existsSync(marker)) throw new Error("this query Worker cannot load");

self.onmessage = (event: MessageEvent) => {
  const job = event.data;
  if (job?.action === "crash") {
    setTimeout(() => {
      throw new Error("the query Worker crashed");
    });
    return;
  }
  (self as unknown as Worker).postMessage({ id: job.id, envelope: { data: job.params } });
};
(self as unknown as Worker).postMessage({ ready: true });
