/**
 * Folding text for matching only: look-alike spellings of an attack fold to the attack itself, with a
 * map from every folded character back to the original, so the sanitiser (learnings.ts) can mark the
 * text as written and store the writer's own characters.
 */

/**
 * Letters that look like a Latin one, only those of the words the sanitiser looks for: Unicode's full
 * confusables table would fold ordinary non-Latin text too. Capitals and small letters are two tables
 * because some letters change their look with their case (Greek Ν/ν reads N/v, Η/η H/n).
 */
const CAPITAL_LOOKS: Record<string, string> = {
  // Cyrillic
  А: 'a',
  В: 'b',
  Е: 'e',
  К: 'k',
  М: 'm',
  Н: 'h',
  О: 'o',
  Р: 'p',
  С: 'c',
  Т: 't',
  У: 'y',
  Х: 'x',
  І: 'i',
  Ј: 'j',
  Ѕ: 's',
  Ԛ: 'q',
  Ԝ: 'w',
  // Greek
  Α: 'a',
  Β: 'b',
  Ε: 'e',
  Ζ: 'z',
  Η: 'h',
  Ι: 'i',
  Κ: 'k',
  Μ: 'm',
  Ν: 'n',
  Ο: 'o',
  Ρ: 'p',
  Τ: 't',
  Υ: 'y',
  Χ: 'x',
  Ϲ: 'c',
  Ϳ: 'j',
};
const SMALL_LOOKS: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  һ: 'h',
  і: 'i',
  ј: 'j',
  к: 'k',
  ӏ: 'l',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  ԛ: 'q',
  ѕ: 's',
  т: 't',
  у: 'y',
  х: 'x',
  ԝ: 'w',
  ԁ: 'd',
  ѵ: 'v',
  п: 'n',
  г: 'r',
  // Greek
  α: 'a',
  β: 'b',
  ε: 'e',
  ζ: 'z',
  η: 'n',
  ι: 'i',
  κ: 'k',
  μ: 'u',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  σ: 'o',
  ς: 'c',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ϲ: 'c',
  ϳ: 'j',
  // Latin and others that NFKC leaves alone
  ı: 'i',
  ȷ: 'j',
  ɑ: 'a',
  ɡ: 'g',
  ɩ: 'i',
  ʏ: 'y',
  ᴀ: 'a',
  ᴇ: 'e',
  ɪ: 'i',
  ᴏ: 'o',
  ᴜ: 'u',
  ꜱ: 's',
  ʀ: 'r',
  ɴ: 'n',
  ᴍ: 'm',
  ᴛ: 't',
  օ: 'o',
  ս: 'u',
  ո: 'n', // Armenian
};

export interface FoldedView {
  text: string;
  /** For each UTF-16 index of `text`: the original index where its character starts… */
  from: number[];
  /** …and where the original stretch it stands for ends (exclusive). */
  to: number[];
}

/**
 * How to read a letter that looks different in its two cases: 'as-written' (a capital as a capital),
 * or 'as-capital' (every letter as its capital would look: text lower-cased for shouting, "ιgνοrε",
 * was written in capitals, "ΙGΝΟRΕ").
 */
export type Reading = 'as-written' | 'as-capital';

const MARK = /\p{M}/gu;
const bare = (s: string): string => s.normalize('NFD').replace(MARK, '');

function foldCodePoint(cp: string, reading: Reading): string {
  let out = '';
  for (const c of bare(cp.normalize('NFKC'))) {
    const capital = reading === 'as-capital' ? c.toUpperCase() : c;
    const looks = CAPITAL_LOOKS[capital];
    if (looks !== undefined) {
      out += looks;
      continue;
    }
    for (const l of bare(c.toLowerCase())) out += SMALL_LOOKS[l] ?? l;
  }
  return out;
}

/** `input` folded per code point (NFKC, combining marks dropped, the tables above, lower case), with its map back. */
export function foldForMatching(input: string, reading: Reading = 'as-written'): FoldedView {
  const view: FoldedView = { text: '', from: [], to: [] };
  let i = 0;
  for (const cp of input) {
    const folded = foldCodePoint(cp, reading);
    const end = i + cp.length;
    if (folded === '') {
      // A dropped character (a combining mark on its own) belongs to the one before it: a span ending
      // there takes it along instead of leaving it to combine with whatever follows.
      if (view.to.length > 0) view.to[view.to.length - 1] = end;
    } else {
      for (const c of folded) {
        view.text += c;
        for (let k = 0; k < c.length; k++) {
          view.from.push(i);
          view.to.push(end);
        }
      }
    }
    i = end;
  }
  return view;
}

/** Single letters (no letter or digit on either side) joined by separators, three or more of them. */
const SPACED = /(?<![\p{L}\p{N}])\p{L}(?:[ \t._\-/]{1,3}\p{L}(?![\p{L}\p{N}])){2,}/gu;

/**
 * The view with runs of spaced-out single letters joined ("S Y S T E M", "s.y.s.t.e.m") and other
 * underscores read as spaces; only here, so that markup such as <tool_call> still matches as written.
 */
export function collapseSpacedLetters(view: FoldedView): FoldedView {
  const out: FoldedView = { text: '', from: [], to: [] };
  let last = 0;
  const copy = (from: number, to: number) => {
    out.text += view.text.slice(from, to).replaceAll('_', ' ');
    out.from.push(...view.from.slice(from, to));
    out.to.push(...view.to.slice(from, to));
  };
  for (const m of view.text.matchAll(SPACED)) {
    const start = m.index!;
    copy(last, start);
    // Letters are kept; a one-character separator is dropped; a wider one (or '/') becomes one space. In
    // a run that spells its letters with '.', '_' or '-', a space is the gap between words ("Y-o-u a-r-e").
    const spelled = /[._-]/.test(m[0]);
    for (const part of m[0].matchAll(/\p{L}|[ \t._\-/]+/gu)) {
      const at = start + part.index!;
      if (/\p{L}/u.test(part[0])) copy(at, at + part[0].length);
      else if (part[0].length > 1 || part[0] === '/' || (spelled && /^[ \t]$/.test(part[0]))) {
        out.text += ' ';
        out.from.push(view.from[at]!);
        out.to.push(view.to[at]!);
      }
    }
    last = start + m[0].length;
  }
  copy(last, view.text.length);
  return out;
}
