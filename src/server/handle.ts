import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type MethodSchema = z.ZodObject<{ method: z.ZodLiteral<string> }>;

/** A request schema that checks only the method: what the SDK parses before calling a handler of ours. */
export const methodOnly = (method: string) => z.looseObject({ method: z.literal(method) });

/**
 * Registers a handler through the SDK's public setRequestHandler, with the request checked here: the
 * SDK turns a request whose params do not match (`resources/read` without a uri) into an Internal
 * error (-32603) carrying a raw zod dump; here it is Invalid params (-32602) naming each field.
 */
export function handle<S extends MethodSchema>(
  server: Server,
  schema: S,
  handler: (request: z.infer<S>, extra: Extra) => unknown,
): void {
  const method = schema.shape.method.value;
  server.setRequestHandler(methodOnly(method), ((request: unknown, extra: Extra) => {
    const parsed = schema.safeParse(request);
    if (!parsed.success) throw invalidParams(method, parsed.error);
    return handler(parsed.data, extra);
  }) as never);
}

export function invalidParams(method: string, error: z.ZodError): Error {
  const parts = error.issues
    .slice(0, 10)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : 'request'}: ${i.message}`);
  return Object.assign(new Error(`Invalid params for ${method}: ${parts.join('; ')}`), {
    code: ErrorCode.InvalidParams,
  });
}
