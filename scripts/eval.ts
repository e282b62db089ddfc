/** `deno task eval`: retrieval-quality evaluation (SPEC §13). Built by the search-ranking issue. */
console.error("sextant eval: not available in this build yet (see the search-ranking issue)");
Deno.exit(2);
