import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  isNegated,
  jaccard,
  MAX_LEARNINGS,
  mergeLearning,
  normalizeLearning,
  truncateLearning,
  wordSet,
  type Learning,
} from '../../src/domain/learnings.js';

const BASE = {
  source: 'agent',
  created: '2026-01-01T00:00:00Z',
  hit_count: 1,
  reviewed: false,
  review_count: 0,
} as const;
const L = (text: string, extra: Partial<Learning> = {}): Learning => ({ text, ...BASE, ...extra });

test('word sets: lower-cased, punctuation trimmed, words of 2 chars or fewer dropped; their jaccard', () => {
  assert.deepEqual([...wordSet('Use the API, not DB! An ok (test).')].sort(), ['api', 'not', 'test', 'the', 'use']);
  assert.equal(jaccard(new Set(['a1x', 'b2x']), new Set(['a1x', 'b2x'])), 1);
  assert.equal(jaccard(new Set(['aaa', 'bbb']), new Set(['bbb', 'ccc'])), 1 / 3);
});

test('negation detection; a leading "No" is a negation ("no-op" is not)', () => {
  const cases: [string, boolean][] = [
    ["Don't mock the database", true],
    ['Never use var', true],
    ['avoid global state', true],
    ['use X instead of Y', true],
    ['prefer A rather than B', true],
    ['do not retry', true],
    ['this is not safe', true],
    ['No: cache the session token in memory', true],
    ['Always use const', false],
    ['Store grams', false],
    ['Notes go in notebooks', false],
    ['Use a no-op logger in tests', false],
  ];
  for (const [text, negated] of cases) assert.equal(isNegated(text), negated, text);
});

test('merge outcomes: added, duplicate (similarity above 0.7, or both negated), replaced (one side negated)', () => {
  // 7 shared of 10 distinct words = 0.7, exactly at the threshold: not a duplicate.
  const a = 'alpha bravo charlie delta echo foxtrot golf hotel india';
  const b = 'alpha bravo charlie delta echo foxtrot golf juliet';
  assert.equal(jaccard(wordSet(a), wordSet(b)), 0.7);
  const cases: [string, string, string][] = [
    ['Run migrations before seeding the database', 'Use the retry helper for flaky network calls', 'added'],
    [a, b, 'added'],
    [
      "Don't call the payment API from tests directly",
      "don't call the payment API from the tests directly",
      'duplicate',
    ],
    ['Cache the session token in memory', 'No: cache the session token in memory', 'replaced'],
    // Texts made only of short words are the same lesson only if they are the same text.
    ['Go', 'No', 'added'],
    ['Go', 'go', 'duplicate'],
  ];
  for (const [old, added, expected] of cases) {
    const r = mergeLearning([L(old)], L(added));
    assert.equal(r.outcome, expected, `${old} + ${added}`);
    assert.equal(r.items.length, expected === 'added' ? 2 : 1);
  }
});

test('a near-duplicate increments hit_count and adds nothing; one side negated replaces in place', () => {
  const old = L('Always run database migrations before seeding test data', { hit_count: 2 });
  const r = mergeLearning([old], L('always run database migrations before seeding the test data'));
  assert.equal(r.outcome, 'duplicate');
  assert.equal(r.items.length, 1);
  assert.equal((r.items[0] as Learning).hit_count, 3);
  assert.equal(old.hit_count, 2, 'input is not mutated');
  const stored = 'Always store quantities in grams, convert only for display';
  const added = 'Never store quantities in grams, convert only for display';
  const replaced = mergeLearning([L('first lesson about caching layers'), L(stored), L('third one here')], L(added));
  assert.equal(replaced.outcome, 'replaced');
  assert.equal(replaced.items.length, 3);
  assert.equal((replaced.items[1] as Learning).text, added);
  assert.equal(replaced.matched, stored);
});

test('at most 50: the oldest unreviewed auto learnings with hit_count <= 1 are pruned first', () => {
  const list: Learning[] = [
    L('keep me human lesson zero', { source: 'human' }),
    L('auto reviewed lesson one', { source: 'auto', reviewed: true }),
    L('auto popular lesson two', { source: 'auto', hit_count: 4 }),
    L('oldest prunable lesson three', { source: 'auto' }),
  ];
  for (let i = 4; i < MAX_LEARNINGS; i++)
    list.push(L(`filler ${i} ${'x'.repeat(3)}${i} unique${i} words${i}`, { source: 'auto' }));
  assert.equal(list.length, MAX_LEARNINGS);
  const r = mergeLearning(list, L('a brand new lesson about logging'));
  assert.equal(r.outcome, 'added');
  assert.equal(r.items.length, MAX_LEARNINGS);
  assert.equal(r.pruned, 1);
  const texts = (r.items as Learning[]).map((l) => l.text);
  assert.ok(!texts.includes('oldest prunable lesson three'));
  assert.ok(texts.includes('keep me human lesson zero'));
});

test('plain-string learnings from older rows read as source auto, hit_count 1; texts are cut to 500', () => {
  assert.deepEqual(normalizeLearning('old style'), { text: 'old style', ...BASE, source: 'auto', created: '' });
  assert.equal(normalizeLearning({ nope: 1 }), undefined);
  assert.equal(truncateLearning('é'.repeat(600)).length, 500);
});

test('keys a newer Ralph adds to a learning survive a rewrite', () => {
  const stored = { text: 'Keep handlers thin and delegate', source: 'human', hit_count: 2, embedding_id: 42 };
  const r = mergeLearning([normalizeLearning(stored)!], L('Something else entirely different'));
  assert.equal((r.items[0] as Record<string, unknown>).embedding_id, 42);
});

const odd = {
  text: 'Ship behind a feature flag first',
  source: 'opus',
  created: 1767225600,
  hit_count: '4',
  reviewed: 1,
  task_id: '3',
};

test('an unrelated append keeps every stored item byte for byte; a duplicate keeps all but hit_count', () => {
  const stored = ['legacy plain string lesson', odd];
  const r = mergeLearning(stored, L('A completely unrelated lesson about logging'));
  assert.equal(r.outcome, 'added');
  assert.deepEqual(r.items.slice(0, 2), stored);
  const dup = mergeLearning([odd], L('ship behind a feature flag first'));
  assert.equal(dup.outcome, 'duplicate');
  assert.deepEqual(dup.items[0], { ...odd, hit_count: 2 });
});

test('the new learning is never the one pruned; items of unknown source are never pruned', () => {
  const full = Array.from({ length: MAX_LEARNINGS }, (_, i) => ({
    ...odd,
    text: `opus lesson ${i} topic${i} area${i}`,
  }));
  const r = mergeLearning(full, L('brand new auto lesson about caching', { source: 'auto' }));
  assert.equal(r.outcome, 'added');
  assert.equal(r.pruned, 0);
  assert.equal(r.items.length, MAX_LEARNINGS + 1, 'over the cap: the tool refuses this with conflict');
});
