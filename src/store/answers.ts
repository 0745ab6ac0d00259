import type { Question } from './records.js';
import type { RalphStore } from './store.js';

/**
 * Records a person's answer (already checked by domain/answers.ts): the one write behind `ralph-mcp
 * answer` and an answer given in the MCP client. `alsoRecord` runs in the same transaction (a
 * session's audit row). Undefined when no question has that id.
 */
export function recordAnswer(
  store: RalphStore,
  questionId: number,
  text: string,
  alsoRecord?: (q: Question) => void,
): Question | undefined {
  return store.write(() => {
    const q = store.signals.answerQuestion(questionId, text);
    if (q) alsoRecord?.(q);
    return q;
  });
}
