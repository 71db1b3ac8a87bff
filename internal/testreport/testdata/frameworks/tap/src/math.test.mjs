import test from 'node:test';
import assert from 'node:assert/strict';

test('adds', () => { assert.equal(2 + 2, 4); });
test('fails an assertion', () => { assert.equal(2 + 2, 5); });
test('skipped', { skip: 'not on this machine' }, () => {});
test('todo', { todo: 'not written yet' }, () => { assert.fail('nope'); });
test('nested', async (t) => {
  await t.test('inner one', () => {});
  await t.test('inner two', () => { assert.ok(false, 'inner two is false'); });
});
test('last', () => {});
