/**
 * Where a grep answer's next page starts: a file of a repository and how many
 * of its matches were already returned. It travels inside the one cursor
 * format of `src/actions/paging.ts`, bound to the generations it was issued at.
 */
export interface GrepPosition {
  repo: string;
  path: string;
  /** Matches of that file already returned. */
  skip: number;
}

/** Whether a decoded value is a grep position. */
export function isGrepPosition(value: unknown): value is GrepPosition {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const position = value as Record<string, unknown>;
  return typeof position.repo === "string" && typeof position.path === "string" &&
    Number.isInteger(position.skip) && (position.skip as number) >= 0 &&
    Object.keys(position).length === 3;
}
