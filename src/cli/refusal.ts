/**
 * A refused stdio launch, told to the client: MCP clients show their users what the server answers, not
 * its stderr, so before exiting the server answers the client's `initialize` with the same one line as a
 * JSON-RPC error. Without an initialize within the wait (a terminal, stdin closed) stdout stays empty.
 */

/** How long a refused launch waits for the client's initialize (clients send it as soon as they spawn). */
export const REFUSAL_WAIT_MS = 3000;
const MAX_BYTES = 1024 * 1024;

/** The error code of the answer: the JSON-RPC "server error" range's first, not a protocol error of the client's. */
export const REFUSED_CODE = -32000;

export function answerInitializeWithRefusal(message: string, wait = REFUSAL_WAIT_MS): Promise<void> {
  const input = process.stdin;
  if (input.isTTY) return Promise.resolve();
  return new Promise((resolve) => {
    let buffered = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      input.off('data', onData);
      input.off('end', finish);
      input.off('error', finish);
      input.pause();
      resolve();
    };
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const id = initializeId(line);
        if (id === undefined) continue;
        const reply = {
          jsonrpc: '2.0',
          id,
          error: { code: REFUSED_CODE, message: `ralph-mcp refused to start: ${message}` },
        };
        process.stdout.write(`${JSON.stringify(reply)}\n`, () => finish()); // stdout-ok: the one JSON-RPC response of a refused launch
        return;
      }
      if (buffered.length > MAX_BYTES) finish();
    };
    const timer = setTimeout(finish, wait);
    input.on('data', onData);
    input.once('end', finish);
    input.once('error', finish);
    input.resume();
  });
}

/** The id of an `initialize` request on this line, else undefined. */
function initializeId(line: string): string | number | undefined {
  try {
    const m = JSON.parse(line) as { method?: unknown; id?: unknown };
    return m.method === 'initialize' && (typeof m.id === 'string' || typeof m.id === 'number') ? m.id : undefined;
  } catch {
    return undefined;
  }
}
