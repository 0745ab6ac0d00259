import { collapseSpacedLetters, foldForMatching } from './lookalikes.js';

/**
 * Feature learnings, deduplicated and pruned as Ralph does, so both programs keep the same list: a
 * near-duplicate bumps the old one's hit_count, unless exactly one of the two is negated ("don't",
 * "never", …), in which case the new one contradicts and replaces the old.
 */

export const LEARNING_SOURCES = ['auto', 'agent', 'human', 'opus_reviewed'] as const;
export type LearningSource = (typeof LEARNING_SOURCES)[number];

export const MAX_LEARNINGS = 50;
export const MAX_LEARNING_CHARS = 500;
export const DUPLICATE_THRESHOLD = 0.7;

export interface Learning {
  text: string;
  /** A short form Ralph's prompts show instead of the text (normalized: subsystem_comments.summary). */
  summary?: string | null;
  reason?: string | null;
  source: LearningSource;
  task_id?: number | null;
  iteration?: number | null;
  created: string;
  hit_count: number;
  reviewed: boolean;
  review_count: number;
}

export type MergeOutcome = 'added' | 'duplicate' | 'replaced';

/** Older rows hold plain strings; read them as `source: auto, hit_count: 1`. */
export function normalizeLearning(item: unknown): Learning | undefined {
  if (typeof item === 'string') {
    return { text: item, source: 'auto', created: '', hit_count: 1, reviewed: false, review_count: 0 };
  }
  if (item === null || typeof item !== 'object') return undefined;
  const o = item as Record<string, unknown>;
  if (typeof o.text !== 'string') return undefined;
  const source = (LEARNING_SOURCES as readonly unknown[]).includes(o.source) ? (o.source as LearningSource) : 'auto';
  // Keys we do not know (a newer Ralph's) are carried along so that rewriting the list keeps them.
  const out: Learning = {
    ...o,
    text: o.text,
    source,
    created: typeof o.created === 'string' ? o.created : '',
    hit_count: typeof o.hit_count === 'number' ? o.hit_count : 1,
    reviewed: o.reviewed === true,
    review_count: typeof o.review_count === 'number' ? o.review_count : 0,
  };
  if (typeof o.reason !== 'string' && o.reason !== null) delete out.reason;
  if (typeof o.task_id !== 'number' && o.task_id !== null) delete out.task_id;
  if (typeof o.iteration !== 'number' && o.iteration !== null) delete out.iteration;
  return out;
}

/** The documented fields only, for tool output. */
export function publicLearning(l: Learning): Learning {
  const out: Learning = {
    text: l.text,
    source: l.source,
    created: l.created,
    hit_count: l.hit_count,
    reviewed: l.reviewed,
    review_count: l.review_count,
  };
  if (l.reason !== undefined) out.reason = l.reason;
  if (l.task_id !== undefined) out.task_id = l.task_id;
  if (l.iteration !== undefined) out.iteration = l.iteration;
  return out;
}

export function wordSet(text: string): Set<string> {
  const words = new Set<string>();
  for (const raw of text.toLowerCase().split(/\s+/)) {
    const w = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if ([...w].length > 2) words.add(w);
  }
  return words;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0; // nothing to compare (see similarity)
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / (a.size + b.size - inter);
}

const NEGATION_RE =
  /(?<![\w-])no(?![\w-])|\b(?:don'?t|do not|doesn'?t|does not|never|not|no longer|avoid|instead of|rather than|can'?t|cannot|shouldn'?t|should not|mustn'?t|must not|won'?t|isn'?t|aren'?t|without)\b/i;

export const isNegated = (text: string): boolean => NEGATION_RE.test(text.replace(/\u2019/g, "'"));

export function truncateLearning(text: string): string {
  const chars = [...text.trim()];
  return chars.length <= MAX_LEARNING_CHARS ? chars.join('') : chars.slice(0, MAX_LEARNING_CHARS).join('');
}

// ---- sanitising (prompt injection) ------------------------------------------------------------

/**
 * What sanitising changed, as reported to the agent (`sanitized` in the tool result): instruction-like
 * text wrapped in a visible `[neutralised: …]` marker, role markup defanged with look-alike brackets no
 * chat template parses (‹system›, ⟦INST⟧), invisible characters that could hide a pattern removed,
 * shouting lower-cased, the length cut.
 */
export type SanitizeChange = 'instructions' | 'markup' | 'invisible' | 'shouting' | 'length';
export const SANITIZE_CHANGES: readonly SanitizeChange[] = [
  'instructions',
  'markup',
  'invisible',
  'shouting',
  'length',
];

export interface SanitizeResult {
  text: string;
  /** What was changed, in SANITIZE_CHANGES order; empty when the text was stored as given. */
  changes: SanitizeChange[];
}

/** The visible marker around neutralised text. Text already inside one is not wrapped again. */
export const NEUTRALISED_OPEN = '[neutralised: ';
const MARKER_RE = /\[neutralised: [^\]\n]*\]/g;

/** Verbs and nouns of "ignore all previous instructions" and its variants. */
const OVERRIDE_VERB = '(?:ignore|disregard|forget|override|overrule|discard)';
const OVERRIDE_NOUN =
  '(?:instructions?|prompts?|rules|directions?|directives?|guidelines|guidance|context|messages?|commands?|orders|constraints)';
const DETERMINER = '(?:all|any|every|the|your|my|these|those|of|everything)';
const EARLIER = '(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|system|developer|old)';

/**
 * Instruction-like phrases: Ralph's own list ("IGNORE ALL", "you are now", "SYSTEM:", …) and common
 * variants, phrases an agent has no reason to write in a lesson about code.
 */
const INSTRUCTION_RES: RegExp[] = [
  // "ignore all previous instructions", "forget your prior rules", "override the system prompt"
  new RegExp(String.raw`\b${OVERRIDE_VERB}\s+(?:${DETERMINER}\s+){0,3}${EARLIER}\s+${OVERRIDE_NOUN}\b`, 'giu'),
  // "disregard the above", "IGNORE PREVIOUS"
  new RegExp(
    String.raw`\b${OVERRIDE_VERB}\s+(?:${DETERMINER}\s+){0,3}(?:previous|prior|above|preceding|foregoing)\b`,
    'giu',
  ),
  // "ignore all instructions", "forget any rules"
  new RegExp(
    String.raw`\b${OVERRIDE_VERB}\s+(?:all|any|every)\s+(?:(?:the|your|of|these|those)\s+){0,2}${OVERRIDE_NOUN}\b`,
    'giu',
  ),
  // Role words in brackets, as some chat formats and jailbreaks write turns: [system], [/assistant],
  // [SYSTEM_PROMPT] (Mistral); in parentheses only the roles no lesson names that way, (system), (assistant).
  /\[\s*\/?\s*(?:system(?:[ _]?prompt)?|assistant|user|human|developer|sys)\s*\]/giu,
  /\(\s*(?:system|assistant|developer)\s*\)/giu,
  // Alpaca-style blocks anywhere in a line: "### Instruction", "### Response", "### Input".
  /#{3}[ \t]*(?:instructions?|response|input)\b/giu,
  /\bforget\s+everything\b/giu,
  /\byou\s+are\s+now\b/giu,
  /\bnew\s+instructions\b/giu,
  /\bsystem\s+prompt\b/giu,
  /\bfrom\s+now\s+on,?\s+you\b/giu,
  // A line that poses as a chat turn or an instruction block: "assistant:", "### Instruction", "SYSTEM:",
  // also as an item of a list ("1. system:", "- system:") or in quotes or backticks ("`system:`").
  /^[ \t>*_\-+\u2022`'"]*(?:\(?\d{1,3}[.)][ \t]*)?[ \t>*_`'"]*(?:#{1,6}[ \t]*)?(?:system|assistant|user|human|developer|instructions?|response)[ \t*_`'"]*:/gimu,
  // A role written as code anywhere in a line: `system:`, `assistant :`.
  /`[ \t]*(?:system|assistant|developer)[ \t]*:[ \t]*`?/giu,
  /^[ \t>]*#{1,6}[ \t]*(?:system|instructions?|response|assistant|user)\b/gimu,
];

/** Role and control markup: chat-template tags and special tokens. */
const MARKUP_RES: RegExp[] = [
  // <system>, </system>, <system-reminder>, <assistant name="x">; not <user-card> or <users>.
  /<\s*\/?\s*(?:system(?:[-_]reminder)?|instructions?|assistant|user|human|developer|tool(?:_call|_result|_use)?|function_calls?|im_start|im_end|start_of_turn|end_of_turn)(?:\s[^<>]{0,200})?\/?\s*>/giu,
  /<\|[^<>|\n]{1,40}\|>/gu,
  /\[\s*\/?\s*INST\s*\]/giu,
  /<<\s*\/?\s*SYS\s*>>/giu,
];

/** Ralph's urgency labels: kept, but lower-cased. */
const URGENCY_RE = /\b(?:IMPORTANT|CRITICAL|URGENT|MANDATORY)\s*:/gu;

const defang = (s: string): string =>
  s
    .replace(/<</g, '‹‹')
    .replace(/>>/g, '››')
    .replace(/</g, '‹')
    .replace(/>/g, '›')
    .replace(/\[/g, '⟦')
    .replace(/\]/g, '⟧');

/**
 * Ralph's rule (over half the cased letters upper case), except that words of up to 4 capitals are
 * acronyms and not counted: "Use JWT, not HMAC" stays as written.
 */
export const MIN_SHOUTING_LETTERS = 12;
export function isShouting(text: string): boolean {
  let upper = 0;
  let lower = 0;
  for (const [word] of text.matchAll(/\p{L}+/gu)) {
    const u = word.match(/\p{Lu}/gu)?.length ?? 0;
    const l = word.match(/\p{Ll}/gu)?.length ?? 0;
    if (l === 0 && u <= 4) continue;
    upper += u;
    lower += l;
  }
  return upper + lower >= MIN_SHOUTING_LETTERS && upper > lower;
}

/** Wraps every match of `re` in a neutralised marker, except matches inside an existing marker. */
function neutralise(text: string, re: RegExp): string {
  const markers = [...text.matchAll(MARKER_RE)].map((m) => [m.index!, m.index! + m[0].length] as const);
  return text.replace(re, (match: string, ...rest: unknown[]) => {
    const offset = rest.find((x) => typeof x === 'number') as number;
    if (markers.some(([from, to]) => offset < to && offset + match.length > from)) return match;
    const lead = /^\s*/.exec(match)![0];
    const body = match.slice(lead.length).trimEnd();
    return `${lead}${NEUTRALISED_OPEN}${defang(body)}]${match.slice(lead.length + body.length)}`;
  });
}

/**
 * Sanitises text an agent writes for other agents' prompts, as Ralph does before it stores a learning.
 * It never deletes what was written (a person still sees it, marked; a model sees no chat-template
 * markup and no bare instruction), and sanitising a sanitised text changes nothing.
 */
export function sanitizeAgentText(input: string, maxChars: number = MAX_LEARNING_CHARS): SanitizeResult {
  const changes = new Set<SanitizeChange>();
  // Format characters (\p{Cf}: zero-width, bidi controls) and C0/C1 controls other than tab and newline.
  const visible = input.replace(/\r\n?/g, '\n').replace(/[\p{Cf}\x00-\x08\x0b-\x1f\x7f-\x9f]/gu, '');
  if (visible !== input.replace(/\r\n?/g, '\n')) changes.add('invisible');
  let text = visible.trim();
  if (isShouting(text)) {
    text = text.toLowerCase();
    changes.add('shouting');
  }
  const urgent = text.replace(URGENCY_RE, (m) => m.toLowerCase());
  if (urgent !== text) {
    text = urgent;
    changes.add('shouting');
  }
  const patterns = neutralisePatterns(text);
  text = patterns.text;
  for (const c of patterns.changes) changes.add(c);
  // A look-alike spelling only NFKC reveals (fullwidth ＜ｓｙｓｔｅｍ＞): its NFKC form is what is stored.
  const nfkc = text.normalize('NFKC');
  if (nfkc !== text) {
    const folded = neutralisePatterns(nfkc);
    if (folded.changes.length > 0) {
      text = folded.text;
      for (const c of folded.changes) changes.add(c);
    }
  }
  const lookalikes = neutraliseLookalikes(text);
  text = lookalikes.text;
  for (const c of lookalikes.changes) changes.add(c);
  const chars = [...text.trim()];
  if (chars.length > maxChars) {
    text = chars.slice(0, maxChars).join('').trimEnd();
    changes.add('length');
  } else {
    text = chars.join('');
  }
  return { text, changes: SANITIZE_CHANGES.filter((c) => changes.has(c)) };
}

function neutralisePatterns(input: string): { text: string; changes: SanitizeChange[] } {
  let text = input;
  const changes: SanitizeChange[] = [];
  for (const re of MARKUP_RES) {
    const next = text.replace(re, defang);
    if (next !== text) {
      text = next;
      if (!changes.includes('markup')) changes.push('markup');
    }
  }
  for (const re of INSTRUCTION_RES) {
    const next = neutralise(text, re);
    if (next !== text) {
      text = next;
      if (!changes.includes('instructions')) changes.push('instructions');
    }
  }
  return { text, changes };
}

interface Span {
  from: number;
  to: number;
  kind: SanitizeChange;
}

/**
 * The patterns, matched on folded views of `text` (lookalikes.ts), as spans of `text` itself. Spans that
 * touch an existing marker are left out: what is marked was handled (and folding the marker's own words
 * would find them again).
 */
function lookalikeSpans(text: string): Span[] {
  const markers = [...text.matchAll(MARKER_RE)].map((m) => [m.index!, m.index! + m[0].length] as const);
  const asWritten = foldForMatching(text);
  const asCapital = foldForMatching(text, 'as-capital');
  const folds = asCapital.text === asWritten.text ? [asWritten] : [asWritten, asCapital];
  const spans: Span[] = [];
  for (const view of folds.flatMap((f) => [f, collapseSpacedLetters(f)])) {
    const kinds: [RegExp, SanitizeChange][] = [
      ...MARKUP_RES.map((re): [RegExp, SanitizeChange] => [re, 'markup']),
      ...INSTRUCTION_RES.map((re): [RegExp, SanitizeChange] => [re, 'instructions']),
    ];
    for (const [re, kind] of kinds) {
      for (const m of view.text.matchAll(re)) {
        let s = m.index!;
        let e = s + m[0].length;
        while (s < e && /\s/u.test(view.text[s]!)) s++;
        while (e > s && /\s/u.test(view.text[e - 1]!)) e--;
        if (s === e) continue;
        const span = { from: view.from[s]!, to: view.to[e - 1]!, kind };
        if (!markers.some(([a, b]) => span.from < b && span.to > a)) spans.push(span);
      }
    }
  }
  return spans;
}

/**
 * What only a look-alike spelling hid: each span found on a folded view is wrapped in the marker in the
 * text as written (defanged inside), line by line, so that a marker never holds a line break.
 */
function neutraliseLookalikes(text: string): { text: string; changes: SanitizeChange[] } {
  const spans = lookalikeSpans(text).sort((a, b) => a.from - b.from || b.to - a.to);
  if (spans.length === 0) return { text, changes: [] };
  const merged: Span[] = [];
  const changes = new Set<SanitizeChange>();
  for (const sp of spans) {
    changes.add(sp.kind);
    const prev = merged[merged.length - 1];
    if (prev && sp.from < prev.to) prev.to = Math.max(prev.to, sp.to);
    else merged.push({ ...sp });
  }
  let out = text;
  for (const { from, to } of merged.reverse()) {
    const wrapped = out
      .slice(from, to)
      .split('\n')
      .map((line) => {
        const body = line.trim();
        if (body === '') return line;
        const lead = line.slice(0, line.indexOf(body));
        return `${lead}${NEUTRALISED_OPEN}${defang(body)}]${line.slice(lead.length + body.length)}`;
      })
      .join('\n');
    out = out.slice(0, from) + wrapped + out.slice(to);
  }
  return { text: out, changes: SANITIZE_CHANGES.filter((c) => changes.has(c)) };
}

/** A feature learning's text: sanitised and cut to MAX_LEARNING_CHARS. */
export const sanitizeLearning = (text: string): SanitizeResult => sanitizeAgentText(text, MAX_LEARNING_CHARS);

/**
 * Jaccard over the word sets. Texts made only of short words ("Go", "No") have empty word sets: they
 * are the same lesson only if they are the same text.
 */
function similarity(aText: string, a: ReadonlySet<string>, bText: string, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return aText.trim().toLowerCase() === bText.trim().toLowerCase() ? 1 : 0;
  return jaccard(a, b);
}

/** Feature knowledge of the other categories is bounded as learnings are: this many entries per category. */
export const MAX_KNOWLEDGE_PER_CATEGORY = MAX_LEARNINGS;

export interface NearMatch {
  /** Its position in the texts given. */
  index: number;
  similarity: number;
  /** Exactly one of the two is negated: the same words saying the opposite. */
  contradicts: boolean;
}

/**
 * The stored text closest to `text` above the duplicate threshold, judged as mergeLearning judges
 * learnings (the first of equally close ones); undefined when none is that close.
 */
export function closestText(stored: readonly string[], text: string): NearMatch | undefined {
  const words = wordSet(text);
  let best: NearMatch | undefined;
  stored.forEach((s, index) => {
    const score = similarity(s, wordSet(s), text, words);
    if (score > DUPLICATE_THRESHOLD && score > (best?.similarity ?? 0))
      best = { index, similarity: score, contradicts: isNegated(s) !== isNegated(text) };
  });
  return best;
}

/**
 * The key under which a store that keeps learnings as rows tags each item with its row's identity; the
 * merge keeps it where an item stays in place, so the store can update that row instead of re-adding it.
 */
export const ITEM_IDENTITY: unique symbol = Symbol('stored learning identity');

export interface MergeResult {
  outcome: MergeOutcome;
  /**
   * The column's new content: the stored items exactly as they were (whatever their shape), except
   * the one matched (hit_count + 1) or replaced, plus the new one, minus the pruned ones.
   */
  items: unknown[];
  /** The learning the outcome is about (the new one, or the existing duplicate). */
  learning: Learning;
  /** For duplicate/replaced: the text that was matched. */
  matched?: string;
  similarity?: number;
  pruned: number;
}

/**
 * Merges `incoming` into the stored items. Only the normalized view is used to compare; what is written
 * back is the stored items themselves, so fields of Ralph's that we do not know (or values of another
 * type) survive any number of appends.
 */
export function mergeLearning(stored: readonly unknown[], incoming: Learning): MergeResult {
  const items = [...stored];
  const newWords = wordSet(incoming.text);
  const newNeg = isNegated(incoming.text);
  let best = -1;
  let bestScore = 0;
  let bestView: Learning | undefined;
  items.forEach((item, i) => {
    const view = normalizeLearning(item);
    if (!view) return;
    const score = similarity(view.text, wordSet(view.text), incoming.text, newWords);
    if (score > DUPLICATE_THRESHOLD && score > bestScore) {
      best = i;
      bestScore = score;
      bestView = view;
    }
  });
  if (bestView) {
    if (isNegated(bestView.text) !== newNeg) {
      // A contradiction: the new lesson supersedes the old one where it stood.
      const old = items[best];
      const identity =
        typeof old === 'object' && old !== null ? (old as { [ITEM_IDENTITY]?: unknown })[ITEM_IDENTITY] : undefined;
      items[best] = identity === undefined ? incoming : { ...incoming, [ITEM_IDENTITY]: identity };
      return {
        outcome: 'replaced',
        items,
        learning: incoming,
        matched: bestView.text,
        similarity: bestScore,
        pruned: 0,
      };
    }
    const old = items[best];
    const bumped =
      typeof old === 'object' && old !== null
        ? { ...(old as object), hit_count: bestView.hit_count + 1 }
        : { ...bestView, hit_count: bestView.hit_count + 1 };
    items[best] = bumped;
    return {
      outcome: 'duplicate',
      items,
      learning: { ...bestView, hit_count: bestView.hit_count + 1 },
      matched: bestView.text,
      similarity: bestScore,
      pruned: 0,
    };
  }
  items.push(incoming);
  const pruned = prune(items);
  return { outcome: 'added', items, learning: incoming, pruned };
}

/**
 * Strictly what Ralph may prune: an unreviewed `auto` learning with hit_count <= 1 (a legacy plain
 * string counts as one). Judged on the stored value, not the normalized view: an item whose source we
 * do not recognise is never pruned.
 */
function isPrunable(item: unknown): boolean {
  if (typeof item === 'string') return true;
  if (item === null || typeof item !== 'object') return false;
  const o = item as Record<string, unknown>;
  return (
    o.source === 'auto' &&
    o.reviewed !== true &&
    (o.hit_count === undefined || (typeof o.hit_count === 'number' && o.hit_count <= 1))
  );
}

/** Drops the oldest prunable items (never the one just added, the last) until at most MAX remain. */
function prune(items: unknown[]): number {
  let removed = 0;
  while (items.length > MAX_LEARNINGS) {
    const idx = items.slice(0, -1).findIndex(isPrunable);
    if (idx < 0) break;
    items.splice(idx, 1);
    removed++;
  }
  return removed;
}
