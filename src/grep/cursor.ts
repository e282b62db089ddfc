/** The `next_cursor` of a truncated grep answer: where the next page starts. */
export interface GrepCursor {
  /** Repository and path of the first file of the next page. */
  repo: string;
  path: string;
  /** Matches of that file already returned. */
  skip: number;
  /** Generation of that repository when the cursor was issued. */
  generation: number;
}

/** Encodes a cursor as an opaque URL-safe string. */
export function encodeCursor(cursor: GrepCursor): string {
  const json = JSON.stringify(["g1", cursor.repo, cursor.path, cursor.skip, cursor.generation]);
  const bytes = new TextEncoder().encode(json);
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** Decodes a cursor; throws a RangeError on anything this module did not issue. */
export function decodeCursor(text: string): GrepCursor {
  try {
    const base64 = text.replaceAll("-", "+").replaceAll("_", "/");
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const value = JSON.parse(new TextDecoder().decode(bytes));
    if (
      Array.isArray(value) && value.length === 5 && value[0] === "g1" &&
      typeof value[1] === "string" && typeof value[2] === "string" &&
      Number.isInteger(value[3]) && value[3] >= 0 && Number.isInteger(value[4])
    ) {
      return { repo: value[1], path: value[2], skip: value[3], generation: value[4] };
    }
  } catch {
    // fall through to the error below
  }
  throw new RangeError("Cannot read cursor: it was not issued by grep");
}
