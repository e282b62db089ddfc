/**
 * A tool result for clients that read only text: the CLI's `path:line: text`
 * lines, then one line of provenance. The envelope itself travels beside it as
 * structured content.
 */
import { formatHuman } from "../cli/printer.ts";
import type { Envelope } from "../protocol/types.ts";
import type { CallToolResult } from "./sdk.ts";

/** The result of a tool call that answered. */
export function answerResult(envelope: Envelope, multiRepo: boolean): CallToolResult {
  const lines = formatHuman(envelope, multiRepo);
  const text = lines ? `${lines}\n${provenanceLine(envelope)}` : provenanceLine(envelope);
  return {
    content: [{ type: "text", text }],
    structuredContent: envelope as unknown as Record<string, unknown>,
  };
}

/** The result of a tool call that failed: the CLI's message, and the code beside it. */
export function errorResult(
  error: { code: number; message: string; data?: unknown },
): CallToolResult {
  return {
    content: [{ type: "text", text: error.message }],
    structuredContent: {
      error: {
        code: error.code,
        message: error.message,
        ...(error.data === undefined ? {} : { data: error.data }),
      },
    },
    isError: true,
  };
}

/**
 * `provenance: backend=… confidence=… fresh=… fallback=… results=N`, and the
 * cursor when the answer was cut: what a model needs to weigh the lines above.
 */
export function provenanceLine(envelope: Envelope): string {
  const { provenance } = envelope;
  const fields = [
    `backend=${provenance.backend}`,
    `confidence=${provenance.confidence}`,
    `fresh=${provenance.fresh}`,
    `fallback=${provenance.fallback_used ? "yes" : "no"}`,
    `results=${envelope.results.length}`,
  ];
  if (envelope.candidates?.length) fields.push(`candidates=${envelope.candidates.length}`);
  if (envelope.truncated) {
    fields.push("truncated=true");
    const cursor = envelope.next_cursor;
    if (cursor) {
      fields.push(`next_cursor=${/[\s"]/.test(cursor) ? JSON.stringify(cursor) : cursor}`);
    }
  }
  return `provenance: ${fields.join(" ")}`;
}
