/**
 * Runs at every request that works on the project (a tool call, a resource, a prompt, a completion):
 * the start-up edge hooks V8's serving defaults in here (src/startup/v8Flags.ts). A module of its own so
 * that the edge can hook it without loading the SDK's Server (createServer.ts).
 */
const onProjectWork: (() => void)[] = [];

export const whenProjectWork = (fn: () => void): void => {
  onProjectWork.push(fn);
};

export const projectWork = (): void => {
  for (const fn of onProjectWork) fn();
};
