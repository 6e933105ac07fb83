import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HandoffNotifier } from '../../../electron/handoff-notice.ts';

describe('the desktop notification of handoffs', () => {
  it('notifies only when the count of open handoffs grows, never for the first count heard', () => {
    const notifier = new HandoffNotifier();
    assert.equal(notifier.heard(2), null, 'the count at start-up is the baseline');
    assert.equal(notifier.heard(2), null);
    assert.deepEqual(notifier.heard(3), { title: 'A visitor asked for the team', body: '3 open questions wait in the Inbox.' });
    assert.equal(notifier.heard(1), null, 'answering some is no news');
    assert.deepEqual(notifier.heard(3), { title: '2 visitors asked for the team', body: '3 open questions wait in the Inbox.' });
  });

  it('ignores what is not a count', () => {
    const notifier = new HandoffNotifier();
    notifier.heard(0);
    for (const bad of [-1, 1.5, '4', null, Number.NaN, 2 ** 60]) assert.equal(notifier.heard(bad), null, String(bad));
    assert.deepEqual(notifier.heard(1), { title: 'A visitor asked for the team', body: '1 open question waits in the Inbox.' });
  });
});
