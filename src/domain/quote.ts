/**
 * Quoting text that came from a project before it is spliced into text a model reads as ours
 * (`instructions`, prompts, state-file headers). JSON.stringify leaves C1 controls, U+2028/U+2029 and
 * format characters raw, so those are escaped too: nothing quoted can start a line, hide text or
 * reorder what a reader sees.
 */

/** Characters JSON.stringify leaves raw that must not reach a prompt or a file raw. */
const EXTRA_ESCAPES = /[\u007f-\u009f\u2028\u2029\p{Cf}]/gu;

const escapeExtra = (json: string): string =>
  json.replace(EXTRA_ESCAPES, (c) =>
    // An astral character (a Unicode tag, U+E00xx) is written as its two UTF-16 halves, as JSON spells it.
    [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );

/**
 * `value` as a one-line JSON string literal. Longer than `maxChars` code points, it is cut and ends in
 * "…" inside the quotes (a bound on what one project value can add to a prompt).
 */
export function quoteData(value: string, maxChars = 500): string {
  const chars = [...value];
  const cut = chars.length > maxChars ? `${chars.slice(0, maxChars).join('')}…` : value;
  return escapeExtra(JSON.stringify(cut));
}

/** A name that can stand bare in a line of ours: ASCII letters, digits, '_', '.', '-'; 1 to 64 of them. */
const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * A name for a one-line label: bare when it is a plain name (`frontend`, `task_execution`), else quoted
 * with quoteData, so no name can carry a line break, a control character or a fake separator (`·`).
 */
export const labelName = (name: string): string => (PLAIN_NAME.test(name) ? name : quoteData(name, 100));
