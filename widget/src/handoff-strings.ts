/**
 * Every text a visitor reads around a handoff (leaving a question for the shop): the offer, the
 * form, the consent wording used when the owner set none, its errors, and the shop's reply. One
 * object, so a language set can replace it whole.
 */
export const HANDOFF_STRINGS = {
  /** Under a fallback answer, and in the panel's head. */
  offer: 'Ask the team',
  offerHint: 'Our team can answer this. Leave your question and how to reach you.',
  formTitle: 'Ask the team',
  question: 'Your question',
  name: 'Name (optional)',
  email: 'E-mail',
  phone: 'Phone',
  contactHint: 'An e-mail address or a phone number, so we can reply.',
  consentDefault: 'I agree that the shop may contact me about my question.',
  submit: 'Send to the team',
  cancel: 'Cancel',
  sent: 'Thank you. The team will reply here and by the contact you gave.',
  needContact: 'Please give an e-mail address or a phone number.',
  needConsent: 'Please tick the box so the team may contact you.',
  invalidEmail: 'Please check the e-mail address.',
  invalidContact: 'Please check the e-mail address and the phone number.',
  tooMany: 'You have left several questions already; the team will reply to those.',
  failed: 'Your question could not be sent. Please try again in a moment.',
  /** Before the question the shop replied to: 'The shop replied to "Do you deliver?"'. */
  replied: 'The shop replied to',
};

export type HandoffStrings = typeof HANDOFF_STRINGS;

/**
 * What a visitor types when asking for a person rather than the assistant ("can I talk to
 * someone?", "speak to a person", "a human please"): the widget then offers the form.
 */
export const ASKS_FOR_A_PERSON = /\b(talk|speak|chat|write)\s+(to|with)\s+(someone|somebody|a\s+(real\s+)?(person|human|agent)|an\s+agent|(the|your)\s+(team|staff|shop|owner))\b|\b(real|actual)\s+(person|human)\b|\bhuman,?\s+please\b/i;
