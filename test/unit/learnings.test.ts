import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
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

const L = (text: string, extra: Partial<Learning> = {}): Learning => ({
  text,
  source: 'agent',
  created: '2026-01-01T00:00:00Z',
  hit_count: 1,
  reviewed: false,
  review_count: 0,
  ...extra,
});

describe('learnings dedup (Ralph rules)', () => {
  test('word sets: lower-cased, punctuation trimmed, words of 2 chars or fewer dropped', () => {
    assert.deepEqual([...wordSet('Use the API, not DB! An ok (test).')].sort(), ['api', 'not', 'test', 'the', 'use']);
  });

  test('jaccard', () => {
    assert.equal(jaccard(new Set(['a1x', 'b2x']), new Set(['a1x', 'b2x'])), 1);
    assert.equal(jaccard(new Set(['aaa', 'bbb']), new Set(['bbb', 'ccc'])), 1 / 3);
  });

  test('negation detection', () => {
    for (const t of [
      "Don't mock the database",
      'Never use var',
      'avoid global state',
      'use X instead of Y',
      'prefer A rather than B',
      'do not retry',
      'this is not safe',
    ])
      assert.ok(isNegated(t), t);
    for (const t of ['Always use const', 'Store grams', 'Notes go in notebooks']) assert.ok(!isNegated(t), t);
  });

  test('a new lesson is added', () => {
    const r = mergeLearning(
      [L('Run migrations before seeding the database')],
      L('Use the retry helper for flaky network calls'),
    );
    assert.equal(r.outcome, 'added');
    assert.equal(r.items.length, 2);
  });

  test('a near-duplicate (similarity > 0.7) increments hit_count and adds nothing', () => {
    const old = L('Always run database migrations before seeding test data', { hit_count: 2 });
    const r = mergeLearning([old], L('always run database migrations before seeding the test data'));
    assert.equal(r.outcome, 'duplicate');
    assert.equal(r.items.length, 1);
    assert.equal((r.items[0] as Learning).hit_count, 3);
    assert.equal(old.hit_count, 2, 'input is not mutated');
  });

  test('similarity exactly at the threshold is not a duplicate (must be above 0.7)', () => {
    // 7 shared of 10 distinct words = 0.7
    const a = 'alpha bravo charlie delta echo foxtrot golf hotel india';
    const b = 'alpha bravo charlie delta echo foxtrot golf juliet';
    assert.equal(jaccard(wordSet(a), wordSet(b)), 0.7);
    assert.equal(mergeLearning([L(a)], L(b)).outcome, 'added');
  });

  test('exactly one side negated: the new lesson replaces the old one in place', () => {
    const list = [
      L('first lesson about caching layers'),
      L('Always store quantities in grams, convert only for display'),
      L('third one here'),
    ];
    const r = mergeLearning(list, L('Never store quantities in grams, convert only for display'));
    assert.equal(r.outcome, 'replaced');
    assert.equal(r.items.length, 3);
    assert.equal((r.items[1] as Learning).text, 'Never store quantities in grams, convert only for display');
    assert.equal(r.matched, 'Always store quantities in grams, convert only for display');
  });

  test('both negated: a plain duplicate', () => {
    const r = mergeLearning(
      [L("Don't call the payment API from tests directly")],
      L("don't call the payment API from the tests directly"),
    );
    assert.equal(r.outcome, 'duplicate');
  });

  test('at most 50: the oldest unreviewed auto learnings with hit_count <= 1 are pruned first', () => {
    const list: Learning[] = [];
    list.push(L('keep me human lesson zero', { source: 'human' }));
    list.push(L('auto reviewed lesson one', { source: 'auto', reviewed: true }));
    list.push(L('auto popular lesson two', { source: 'auto', hit_count: 4 }));
    list.push(L('oldest prunable lesson three', { source: 'auto' }));
    for (let i = 4; i < MAX_LEARNINGS; i++)
      list.push(L(`filler ${i} ${'x'.repeat(3)}${i} unique${i} words${i}`, { source: 'auto' }));
    assert.equal(list.length, MAX_LEARNINGS);
    const r = mergeLearning(list, L('a brand new lesson about logging'));
    assert.equal(r.outcome, 'added');
    assert.equal(r.items.length, MAX_LEARNINGS);
    assert.equal(r.pruned, 1);
    assert.ok(!(r.items as Learning[]).some((l) => l.text === 'oldest prunable lesson three'));
    assert.ok((r.items as Learning[]).some((l) => l.text === 'keep me human lesson zero'));
  });

  test('plain-string learnings from older rows read as source auto, hit_count 1', () => {
    assert.deepEqual(normalizeLearning('old style'), {
      text: 'old style',
      source: 'auto',
      created: '',
      hit_count: 1,
      reviewed: false,
      review_count: 0,
    });
    assert.equal(normalizeLearning({ nope: 1 }), undefined);
  });

  test('texts are cut to 500 characters', () => {
    assert.equal(truncateLearning('é'.repeat(600)).length, 500);
  });
});

describe('learnings edge cases', () => {
  test('texts made only of short words are the same lesson only if they are the same text', () => {
    assert.equal(mergeLearning([L('Go')], L('No')).outcome, 'added');
    assert.equal(mergeLearning([L('Go')], L('go')).outcome, 'duplicate');
  });

  test('a leading "No" is a negation ("no-op" is not)', () => {
    assert.ok(isNegated('No: cache the session token in memory'));
    assert.ok(!isNegated('Use a no-op logger in tests'));
    const r = mergeLearning([L('Cache the session token in memory')], L('No: cache the session token in memory'));
    assert.equal(r.outcome, 'replaced');
  });

  test('keys a newer Ralph adds to a learning survive a rewrite', () => {
    const old = normalizeLearning({
      text: 'Keep handlers thin and delegate',
      source: 'human',
      hit_count: 2,
      embedding_id: 42,
    })!;
    const r = mergeLearning([old], L('Something else entirely different'));
    assert.equal((r.items[0] as Record<string, unknown>).embedding_id, 42);
  });
});

describe('stored learnings are written back as they were', () => {
  const odd = {
    text: 'Ship behind a feature flag first',
    source: 'opus',
    created: 1767225600,
    hit_count: '4',
    reviewed: 1,
    task_id: '3',
  };

  test('an unrelated append keeps every stored item byte for byte', () => {
    const stored = ['legacy plain string lesson', odd];
    const r = mergeLearning(stored, L('A completely unrelated lesson about logging'));
    assert.equal(r.outcome, 'added');
    assert.deepEqual(r.items.slice(0, 2), stored);
  });

  test('a duplicate bumps hit_count and keeps the rest of the stored item', () => {
    const r = mergeLearning([odd], L('ship behind a feature flag first'));
    assert.equal(r.outcome, 'duplicate');
    assert.deepEqual(r.items[0], { ...odd, hit_count: 2 });
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
});
