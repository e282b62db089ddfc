/**
 * One-line summaries of definitions and files for map, outline and context:
 * a signature without trailing comments, the first sentence of a doc, a
 * module's leading doc comment. What they return is signatures and doc
 * sentences only, never bodies (agents in summary mode read nothing else).
 */
import type { StoredSymbol } from "../store/reader.ts";

/** Longest signature or sentence shown on one line. */
const MAX_LINE = 160;

/** A signature on one line, without a trailing comment the extractor kept. */
export function cleanSignature(signature: string | null): string | null {
  if (!signature) return null;
  let line = signature.replace(/\s+/g, " ").trim();
  // `def f(x): # comment`, `fn f() // comment`: cut the comment when no quote is open before it.
  const comment = /\s(#|\/\/)\s/.exec(line);
  if (comment && quotesBalanced(line.slice(0, comment.index))) {
    line = line.slice(0, comment.index).trim();
  }
  line = line.replace(/\s*[{:]$/, "").trim();
  return clip(line);
}

/** The first sentence of a doc comment or docstring, on one line. */
export function firstSentence(doc: string | null): string | null {
  if (!doc) return null;
  const text = doc
    .replace(/^\s*(\/\*\*?|\*\/|\/\/\/?|#+|"""|''')/gm, " ")
    .replace(/^\s*\*\s?/gm, " ")
    .replace(/\s+/g, " ")
    .trim()
    // A leading tag that names the doc's kind (`@module`, `@file`) is not part of the sentence.
    .replace(
      /^@(module|file|fileoverview|overview|packageDocumentation|description|summary)\b:?\s*/i,
      "",
    );
  if (!text) return null;
  const end = /[.!?](\s|$)/.exec(text);
  return clip(end ? text.slice(0, end.index + 1) : text);
}

/** Kinds whose recorded "signature" is their whole assignment: only its left side is shown. */
const VALUE_KINDS = new Set(["variable", "constant", "field", "property"]);

/**
 * A definition's signature on one line, or its kind and name. A variable,
 * constant or field keeps its name and annotation, never the value assigned
 * (that is source text, not a signature).
 */
export function signatureLine(symbol: { kind: string; name: string; signature: string | null }) {
  const signature = cleanSignature(symbol.signature);
  if (!signature) return `${symbol.kind} ${symbol.name}`;
  if (!VALUE_KINDS.has(symbol.kind)) return signature;
  const assignment = /\s*(?<![=!<>:+\-*/%&|^])=(?![=>])/.exec(signature);
  return assignment ? signature.slice(0, assignment.index).trim() || symbol.name : signature;
}

/** A definition as one line: its signature (or kind and name) and its doc's first sentence. */
export function definitionSummary(symbol: StoredSymbol): string {
  const head = signatureLine(symbol);
  const sentence = firstSentence(symbol.doc);
  return sentence ? `${head} — ${sentence}` : head;
}

/**
 * The first sentence of the doc comment a file starts with (a Python module
 * docstring, a leading `/** … *\/` or `//` block, Rust `//!`, Go's package
 * comment), or null.
 */
export function moduleDocSentence(text: string): string | null {
  const lines = text.split("\n", 80);
  let at = 0;
  // Skip a shebang, encoding lines, license-free blank lines.
  while (at < lines.length && (/^#!|^# -\*-|^\s*$/.test(lines[at]))) at++;
  const first = lines[at] ?? "";
  const python = /^\s*[rRuU]?("""|''')/.exec(first);
  if (python) {
    const quote = python[1];
    const rest = first.slice(first.indexOf(quote) + 3);
    const close = rest.indexOf(quote);
    if (close >= 0) return firstSentence(rest.slice(0, close));
    const body = [rest];
    for (let i = at + 1; i < lines.length; i++) {
      const end = lines[i].indexOf(quote);
      if (end >= 0) {
        body.push(lines[i].slice(0, end));
        break;
      }
      body.push(lines[i]);
    }
    return firstSentence(body.join("\n"));
  }
  if (/^\s*\/\*\*?/.test(first)) {
    const body: string[] = [];
    for (let i = at; i < lines.length; i++) {
      body.push(lines[i]);
      if (lines[i].includes("*/")) break;
    }
    const joined = body.join("\n").replace(/\*\/[\s\S]*$/, "");
    if (/copyright|license|spdx/i.test(joined)) return null;
    return firstSentence(joined);
  }
  if (/^\s*(\/\/[!/]?|#)/.test(first)) {
    const body: string[] = [];
    for (let i = at; i < lines.length && /^\s*(\/\/[!/]?|#)/.test(lines[i]); i++) {
      body.push(lines[i].replace(/^\s*(\/\/[!/]?|#+)\s?/, ""));
    }
    const joined = body.join("\n");
    if (/copyright|license|spdx/i.test(joined)) return null;
    return firstSentence(joined);
  }
  return null;
}

function quotesBalanced(text: string): boolean {
  return (text.match(/"/g)?.length ?? 0) % 2 === 0 && (text.match(/'/g)?.length ?? 0) % 2 === 0;
}

function clip(text: string): string {
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE - 1)}…` : text;
}
