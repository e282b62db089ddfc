/**
 * Who is asking and what they may see, as actions receive it: the policy's
 * `AccessContext` (the embedded CLI without an agent passes an empty one).
 * Actions never read it directly; dispatch turns it into a `RequestScope`.
 */
export type { AccessContext as ActionContext } from "../workspace/scope.ts";
