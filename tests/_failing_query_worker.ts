/**
 * The daemon's query Worker, made to fail outside the action on purpose: a
 * search for one of the queries below throws from a timer, or leaves a
 * rejected promise unhandled, instead of answering. Every other job is the
 * real Worker's.
 */
import "../src/daemon/query_worker.ts";

const answer = self.onmessage as (event: MessageEvent) => unknown;
self.onmessage = (event: MessageEvent) => {
  const query = event.data?.params?.query;
  if (query === "throw outside the action") {
    setTimeout(() => {
      throw new Error("a fault outside the action");
    });
    return;
  }
  if (query === "reject outside the action") {
    Promise.reject(new Error("a rejection nobody handles"));
    return;
  }
  return answer(event);
};
