/**
 * The visitor side's size limits, in a module without zod: the widget script (widget/) imports
 * them, and its size budget has no room for a schema library. common/contract/widget.ts builds
 * the schemas from them.
 */

/** A visitor's question: shorter than an API caller's, as a chat box needs no more. */
export const VISITOR_QUESTION_MAX = 500;
/** Earlier turns a visitor's browser sends back with a follow-up question. */
export const VISITOR_CONVERSATION_MAX_TURNS = 10;
/** The longest earlier turn the browser sends back; longer answers are cut, not refused. */
export const VISITOR_TURN_MAX = 4_000;
