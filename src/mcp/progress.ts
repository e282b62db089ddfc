/**
 * MCP progress for a request's refreshes. A refresh reports phases per
 * repository, each counting from zero; MCP wants one value that only grows.
 * Each repository gets an equal share of `PROGRESS_TOTAL`, and within it each
 * phase a fixed slice (the parse phase, where the time goes, the most).
 */
import type { RefreshProgress } from "../indexer/refresh.ts";

/** The `total` of every progress notification. */
export const PROGRESS_TOTAL = 1000;

/** Where each phase starts and ends within one repository's share (0..1). */
const PHASES: Record<RefreshProgress["phase"], [number, number]> = {
  inventory: [0, 0.05],
  plan: [0.05, 0.1],
  parse: [0.1, 0.9],
  commit: [0.9, 1],
  done: [1, 1],
};

/** One notification's params, without the token. */
export interface ProgressStep {
  progress: number;
  total: number;
  message: string;
}

/**
 * A reporter for one request that refreshes `repositories` repositories:
 * returns the step to send, or null when the value would not grow or the
 * last one was sent under `intervalMs` ago (phase changes always go out).
 */
export function progressReporter(
  repositories: number,
  options: { intervalMs?: number; now?: () => number } = {},
): (repo: string, progress: RefreshProgress) => ProgressStep | null {
  const share = PROGRESS_TOTAL / Math.max(1, repositories);
  const order = new Map<string, number>();
  const now = options.now ?? (() => performance.now());
  const interval = options.intervalMs ?? 100;
  let lastValue = -1;
  let lastTime = -Infinity;
  let lastPhase = "";
  return (repo, progress) => {
    if (!order.has(repo)) order.set(repo, Math.min(order.size, repositories - 1));
    const [start, end] = PHASES[progress.phase] ?? [0, 0];
    const fraction = progress.total > 0 ? Math.min(1, progress.done / progress.total) : 0;
    const within = start + (end - start) * fraction;
    const value = Math.min(
      PROGRESS_TOTAL,
      Math.floor(order.get(repo)! * share + within * share),
    );
    const key = `${repo}/${progress.phase}`;
    const time = now();
    if (value <= lastValue) return null;
    if (key === lastPhase && time - lastTime < interval && fraction < 1) return null;
    lastValue = value;
    lastTime = time;
    lastPhase = key;
    const counts = progress.total > 0 ? ` ${progress.done}/${progress.total}` : "";
    return {
      progress: value,
      total: PROGRESS_TOTAL,
      message: `${repo}: ${progress.phase}${counts}`,
    };
  };
}
