import { createServer, request, type Server } from 'node:http';

/**
 * A loopback reverse proxy that adds `Authorization: Bearer <token>` and forwards to the server, as a
 * deployment's proxy would: for clients that cannot send headers (the MCP Inspector CLI 0.15 cannot).
 * Host is rewritten to the server's own (it checks Host against itself). Resolves with the proxy's port.
 */
export async function authProxy(targetPort: number, token: string): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    const headers = { ...req.headers, host: `127.0.0.1:${targetPort}`, authorization: `Bearer ${token}` };
    delete headers.origin;
    const up = request({ host: '127.0.0.1', port: targetPort, path: req.url, method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  return { port: typeof addr === 'object' && addr ? addr.port : 0, server };
}
