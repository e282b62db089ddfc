/** What this build is called and which wire protocol it speaks (the daemon's and MCP's `initialize`). */
export const SERVER_NAME = "sextant";
export const SERVER_VERSION = "0.1.0";
/** Bumped when a method or a message shape changes incompatibly (docs/protocol.md). */
export const PROTOCOL_VERSION = "1";
