import type { Row } from '../db/database.js';
import type { Question } from './records.js';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Signals as text and records, the same on both generations. */

/** A signal as one line of text: what the agent (or person) said, whatever the verb. */
export function signalBody(r: Row): string {
  const s = (k: string) => str(r[k]) ?? '';
  switch (r.verb) {
    case 'learned':
      return s('text');
    case 'done':
      return s('summary');
    case 'partial':
      return `${s('summary')}\nRemaining: ${s('remaining')}`;
    case 'stuck':
      return s('reason');
    case 'ask':
      return r.answer != null ? `${s('question')}\nAnswer: ${s('answer')}` : s('question');
    case 'flag':
      return `[${s('severity')}, ${s('category')}] ${s('what')}`;
    case 'suggest':
      return `[${s('kind')}] ${s('what')} (why: ${s('why')})`;
    case 'blocked':
      // The same words report_blocker writes on the legacy generation.
      return r.detail != null ? `Blocked: ${s('detail')} (blocked on ${s('on')})` : `Blocked: ${s('on')}`;
    default:
      return s('text') || s('summary') || s('reason') || s('question') || s('what');
  }
}

/** The columns questionFromRow reads. */
export const QUESTION_COLUMNS = 'id, task_id, question, options, preferred, blocking, answer, session_id, created';

/** An ask signal's row (Ralph's columns, options one per line) as a Question. */
export function questionFromRow(r: Row): Question {
  return {
    id: Number(r.id),
    task_id: Number(r.task_id),
    question: str(r.question) ?? '',
    options: (str(r.options) ?? '').split('\n').filter((o) => o !== ''),
    preferred: str(r.preferred),
    blocking: r.blocking === 1,
    answer: str(r.answer),
    session_id: String(r.session_id),
    created: str(r.created),
  };
}
