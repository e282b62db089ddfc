import assert from "node:assert/strict";
import { FrameTooLarge, jsonDepth, readFrames } from "../src/daemon/framing.ts";
import { parseFrame } from "../src/daemon/jsonrpc.ts";
import { ErrorCode } from "../src/protocol/errors.ts";

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function frames(stream: ReadableStream<Uint8Array>, max?: number): Promise<string[]> {
  const out: string[] = [];
  for await (const frame of readFrames(stream, max)) out.push(new TextDecoder().decode(frame));
  return out;
}

Deno.test("framing: frames split across chunks, blank lines skipped, a last frame without newline", async () => {
  assert.deepEqual(await frames(streamOf('{"a":', '1}\n\n  \n{"b"', ":2}\n[3]")), [
    '{"a":1}',
    '{"b":2}',
    "[3]",
  ]);
});

Deno.test("framing: a frame over the limit throws, even before its newline arrives", async () => {
  await assert.rejects(() => frames(streamOf("x".repeat(11)), 10), FrameTooLarge);
  await assert.rejects(() => frames(streamOf("xxxxxx", "xxxxxx\n"), 10), FrameTooLarge);
  assert.deepEqual(await frames(streamOf("x".repeat(10) + "\n"), 10), ["x".repeat(10)]);
});

Deno.test("framing: depth counts brackets outside strings only", () => {
  assert.equal(jsonDepth('{"a":[1,{"b":"[[[{{{"}]}'), 3);
  assert.equal(jsonDepth('"\\"[["'), 0);
  assert.equal(jsonDepth("[".repeat(70)), 70);
});

Deno.test("jsonrpc: frames become requests or the error that answers them", () => {
  const parse = (text: string) => parseFrame(new TextEncoder().encode(text));
  const request = parse('{"jsonrpc":"2.0","id":"a","method":"status","params":{}}');
  assert.deepEqual(request.items?.[0].request, { id: "a", method: "status", params: {} });
  const notification = parse('{"jsonrpc":"2.0","method":"status"}');
  assert.equal("id" in notification.items![0].request!, false);
  const code = (text: string) => {
    const parsed = parse(text);
    const response = parsed.error ?? parsed.items![0].error!;
    return (response as { error: { code: number } }).error.code;
  };
  assert.equal(code("{"), ErrorCode.ParseError);
  assert.equal(code('{"jsonrpc":"2.0","id":{},"method":"x"}'), ErrorCode.InvalidRequest);
  assert.equal(code('{"jsonrpc":"2.0","id":1,"method":""}'), ErrorCode.InvalidRequest);
  assert.equal(
    code('{"jsonrpc":"2.0","id":1,"method":"x","params":"p"}'),
    ErrorCode.InvalidRequest,
  );
  assert.equal(code("[]"), ErrorCode.InvalidRequest);
  assert.equal(code("[".repeat(65) + "]".repeat(65)), ErrorCode.LimitExceeded);
  const invalidUtf8 = parseFrame(new Uint8Array([0x7b, 0xff, 0x7d]));
  assert.equal((invalidUtf8.error as { error: { code: number } }).error.code, ErrorCode.ParseError);
});
