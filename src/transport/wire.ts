import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RESULT_TEXT } from '../session/toolResult.js';

interface SplicableResult {
  content: [{ type: 'text'; text: string }] | [];
  structuredContent: unknown;
  [RESULT_TEXT]?: string;
}

/** One newline-terminated JSON-RPC line, byte for byte what JSON.stringify(message) + "\n" gives. */
export function wireLine(message: JSONRPCMessage): string {
  const m = message as { result?: SplicableResult; jsonrpc?: string; id?: string | number };
  const result = m.result;
  const text = result?.[RESULT_TEXT];
  if (text !== undefined && result !== undefined && splicable(m, result, text)) {
    // The structured copy alone (resultCopies.ts), or with its text copy.
    const content = result.content.length === 0 ? '[]' : `[{"type":"text","text":${JSON.stringify(text)}}]`;
    return `{"result":{"content":${content},"structuredContent":${text}},"jsonrpc":"2.0","id":${JSON.stringify(m.id)}}\n`;
  }
  return `${JSON.stringify(message)}\n`;
}

/** Only the exact shape okResult builds, in the key order Protocol sends it, unchanged since. */
function splicable(m: object, result: SplicableResult, text: string): boolean {
  const keys = Object.keys(m);
  if (keys.length !== 3 || keys[0] !== 'result' || keys[1] !== 'jsonrpc' || keys[2] !== 'id') return false;
  const rk = Object.keys(result);
  if (rk.length !== 2 || rk[0] !== 'content' || rk[1] !== 'structuredContent') return false;
  return result.content.length === 0 || (result.content.length === 1 && result.content[0].text === text);
}
