/**
 * Ralph's eight signal verbs: how a task agent ends or annotates its work. The value sets are
 * Ralph's (its task_signals CHECKs); `learned.scope` also takes `feature`, the name Ralph's own signal
 * server advertises, as a synonym of `subsystem` (the only spelling its schema stores).
 */

export const VERBS = ['done', 'partial', 'stuck', 'ask', 'flag', 'learned', 'suggest', 'blocked'] as const;
export type Verb = (typeof VERBS)[number];

export const FLAG_SEVERITIES = ['info', 'warning', 'blocking'] as const;
export const FLAG_CATEGORIES = [
  'bug',
  'stale',
  'contradiction',
  'ambiguity',
  'overlap',
  'performance',
  'security',
  'incomplete_prior',
] as const;
export const LEARNED_KINDS = ['discovery', 'decision', 'convention'] as const;
export const LEARNED_SCOPES = ['project', 'subsystem', 'task'] as const;
/** What an agent may send for learned.scope: Ralph's three, plus its signal server's `feature`. */
export const LEARNED_SCOPE_INPUTS = ['project', 'subsystem', 'feature', 'task'] as const;
export const SUGGEST_KINDS = ['new_task', 'split', 'refactor', 'alternative', 'deprecate'] as const;
export const BLOCKED_KINDS = ['upstream_task', 'external'] as const;

/** Every payload column of task_signals (Ralph's table), in its order. */
export const SIGNAL_COLUMNS = [
  'text',
  'summary',
  'remaining',
  'reason',
  'question',
  'what',
  'on',
  'blocking',
  'severity',
  'category',
  'kind',
  'scope',
  'preferred',
  'options',
  'rationale',
  'why',
  'detail',
  'answer',
] as const;
export type SignalColumn = (typeof SIGNAL_COLUMNS)[number];

/** The payload columns each verb sets (its CHECK requires or allows them; every other one stays NULL). */
export const VERB_COLUMNS: Readonly<Record<Verb, readonly SignalColumn[]>> = {
  done: ['summary'],
  partial: ['summary', 'remaining'],
  stuck: ['reason'],
  ask: ['question', 'options', 'preferred', 'blocking'],
  flag: ['what', 'severity', 'category'],
  learned: ['text', 'kind', 'scope', 'rationale'],
  suggest: ['what', 'kind', 'why'],
  blocked: ['on', 'kind', 'detail'],
};

/** A signal as a row: the verb and exactly the columns its CHECK allows (the others stay NULL). */
export interface SignalRow {
  verb: Verb;
  columns: Partial<Record<SignalColumn, string | number | null>>;
}

/** The arguments of a verb after validation (trimmed, defaults applied, synonyms mapped). */
export type SignalPayload = Record<string, string | boolean | string[]>;

/**
 * The row a payload becomes, as Ralph's own insert_<verb>_signal writes it: required texts trimmed
 * (the payload already is), `options` joined by newlines, `blocking` 0/1.
 */
export function signalRow(verb: Verb, p: SignalPayload): SignalRow {
  const s = (k: string): string | null => (typeof p[k] === 'string' ? (p[k] as string) : null);
  switch (verb) {
    case 'done':
      return { verb, columns: { summary: s('summary') } };
    case 'partial':
      return { verb, columns: { summary: s('summary'), remaining: s('remaining') } };
    case 'stuck':
      return { verb, columns: { reason: s('reason') } };
    case 'ask':
      return {
        verb,
        columns: {
          question: s('question'),
          options: Array.isArray(p.options) ? p.options.join('\n') : null,
          preferred: s('preferred'),
          blocking: p.blocking === true ? 1 : 0,
        },
      };
    case 'flag':
      return { verb, columns: { what: s('what'), severity: s('severity'), category: s('category') } };
    case 'learned':
      return { verb, columns: { text: s('text'), kind: s('kind'), scope: s('scope'), rationale: s('rationale') } };
    case 'suggest':
      return { verb, columns: { what: s('what'), kind: s('kind'), why: s('why') } };
    case 'blocked':
      return { verb, columns: { on: s('on'), kind: s('kind'), detail: s('detail') } };
  }
}

/** What the agent should do after each verb (the answer tells it; Ralph's loop acts on the row). */
export const AFTER: Record<Verb, string> = {
  done: 'Recorded. Ralph reviews the task and marks it complete; stop working on it now.',
  partial: 'Recorded. The next session on this task starts from what you said remains; stop here.',
  stuck: 'Recorded. Ralph will end this session; stop now.',
  ask: 'Recorded. A person answers later; if it blocks you, stop now, otherwise go on with your best judgment.',
  flag: 'Recorded for a reviewer. Go on with your task unless the flag is blocking.',
  learned: 'Recorded. Future sessions see it.',
  suggest: 'Recorded for a reviewer. Go on with your task.',
  blocked: 'Recorded. Ralph schedules this task again once the blocker is resolved; stop working on the blocked part.',
};

/** What the agent does when a person answered its question at once, in its client. */
export const AFTER_ANSWERED = 'A person answered (answer): go on with your task accordingly.';
