import { leaseLaunchedTask, releaseOnClose, renewLease, takenOverFrom } from '../tools/claims.js';

/**
 * What the tools add to a session beyond their calls: a claim's lease is renewed by every call of its
 * session, given back when the session closes, and a task another session took over stops being the
 * session's own; a session launched for its task takes the lease on it at its writes. The session
 * reaches these only through here, never through a tool's module.
 */
export const SESSION_HOOKS = {
  beforeCall: renewLease,
  beforeWrite: leaseLaunchedTask,
  onClose: releaseOnClose,
  takenOver: takenOverFrom,
} as const;
