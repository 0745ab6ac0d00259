import { packageVersion } from '../domain/packageInfo.js';
import type { SessionPlan } from '../session/plan.js';
import { claimsTasks } from '../session/session.js';

/**
 * Who the server is and what it offers, as `initialize` answers: given to the SDK's Server
 * (createServer.ts), and answered with before that Server exists (transport/sdkOnDemand.ts), so the two
 * cannot differ.
 */
export function serverIdentity(plan: SessionPlan) {
  return {
    info: { name: 'ralph-mcp', title: 'Ralph project tools', version: packageVersion() },
    // A session that can claim announces the tools a claimed task's discipline removes.
    // resources.subscribe: server/watch.ts; logging: server/clientLog.ts.
    capabilities: {
      tools: { listChanged: claimsTasks(plan.tools.map((t) => t.def.name)) },
      resources: { subscribe: true },
      prompts: {},
      completions: {},
      logging: {},
    },
    instructions: plan.instructions,
  };
}
