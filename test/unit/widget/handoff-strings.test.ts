import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ASKS_FOR_A_PERSON, HANDOFF_STRINGS } from '../../../widget/src/handoff-strings.ts';

describe('the widget: asking for a person', () => {
  it('recognises a visitor asking for a person rather than the assistant', () => {
    for (const text of ['Can I talk to someone?', 'I want to speak to a person', 'speak with a real human please', 'Can I chat with your team?', 'real person please', 'human, please', 'talk to an agent']) {
      assert.ok(ASKS_FOR_A_PERSON.test(text), text);
    }
  });

  it('leaves questions about people or talking to the assistant', () => {
    for (const text of ['Who is the person behind the bakery?', 'Do you talk about allergens on the label?', 'Is the cake suitable for someone with diabetes?', 'How many persons does the large cake serve?']) {
      assert.ok(!ASKS_FOR_A_PERSON.test(text), text);
    }
  });

  it('keeps every handoff text in one object, none empty', () => {
    for (const [key, text] of Object.entries(HANDOFF_STRINGS)) assert.ok(text.trim().length > 0, key);
  });
});
