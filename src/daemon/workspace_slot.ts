/**
 * The workspace new requests run on, and the retirement of one a reload
 * replaced: requests already running finish on the workspace they started
 * with, which closes after the last of them (and after its refreshes settle).
 */
import type { Workspace } from "../workspace/workspace.ts";

/** A request's hold on the workspace it started with. */
export interface Lease {
  readonly workspace: Workspace;
  /** Ends the hold (once; later calls do nothing). */
  release(): void;
}

export class WorkspaceSlot {
  #current: Workspace;
  /** Requests running per workspace. */
  readonly #busy = new Map<Workspace, number>();
  /** Replaced workspaces that still have requests running. */
  readonly #retired = new Set<Workspace>();

  constructor(workspace: Workspace) {
    this.#current = workspace;
  }

  get current(): Workspace {
    return this.#current;
  }

  /** Holds the current workspace for one request. */
  acquire(): Lease {
    const workspace = this.#current;
    this.#busy.set(workspace, (this.#busy.get(workspace) ?? 0) + 1);
    let released = false;
    return {
      workspace,
      release: () => {
        if (released) return;
        released = true;
        this.#release(workspace);
      },
    };
  }

  /** Makes `next` current; the previous one closes once no request holds it. */
  replace(next: Workspace): void {
    const previous = this.#current;
    this.#current = next;
    if ((this.#busy.get(previous) ?? 0) === 0) closeWhenSettled(previous);
    else this.#retired.add(previous);
  }

  /** Closes the current workspace and every retired one at once (shutdown). */
  close(): void {
    this.#current.close();
    for (const workspace of this.#retired) workspace.close();
    this.#retired.clear();
  }

  #release(workspace: Workspace): void {
    const busy = (this.#busy.get(workspace) ?? 1) - 1;
    if (busy > 0) {
      this.#busy.set(workspace, busy);
      return;
    }
    this.#busy.delete(workspace);
    if (this.#retired.delete(workspace)) closeWhenSettled(workspace);
  }
}

function closeWhenSettled(workspace: Workspace): void {
  workspace.settled().then(() => workspace.close());
}
