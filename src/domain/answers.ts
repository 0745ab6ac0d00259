/**
 * A person's answer to a question an agent asked, however it is given (`ralph-mcp answer`, the MCP
 * client's form): the same rules, so both write the same row.
 */

/** The longest answer: as long as the longest question an agent may ask (the tools' text limit). */
export const ANSWER_MAX_CHARS = 20_000;

/** The answer as it is stored (trimmed), or what is wrong with it (to follow the field's name). */
export function answerText(raw: unknown): { text: string } | { problem: string } {
  if (typeof raw !== 'string') return { problem: `must be text, got ${raw === null ? 'null' : typeof raw}` };
  const text = raw.trim();
  if (text === '') return { problem: 'must not be empty' };
  if (text.length > ANSWER_MAX_CHARS)
    return { problem: `must be at most ${ANSWER_MAX_CHARS} characters, got ${text.length}` };
  return { text };
}
