import net from 'node:net';
import type { WidgetLimits } from '../../common/contract/widget.ts';

/**
 * An address may ask this many times a visitor's rate: several visitors often share one (an
 * office, a shop's own Wi-Fi, a mobile carrier's NAT), while one visitor opening session after
 * session to escape the per-visitor limit still meets this one.
 */
export const ADDRESS_FACTOR = 4;
/** Sessions an address may start per minute: a visitor opens a few tabs, not dozens a minute. */
export const SESSIONS_PER_ADDRESS_PER_MINUTE = 20;
/**
 * Sessions a widget may start per minute, all visitors together, as a multiple of its questions
 * per minute: the widget starts a session on a visitor's first question, so more sessions than
 * questions the widget may answer are no visitors' (60 a minute → 120 by default).
 */
export const WIDGET_SESSIONS_FACTOR = 2;
/** Ratings a session may send per minute (each answer is rated at most a few times). */
const FEEDBACK_PER_SESSION_PER_MINUTE = 30;

const DAY_MS = 86_400_000;
/** Buckets are swept of idle (full) entries after this many takes, so memory follows active visitors only. */
const SWEEP_EVERY = 1_000;

export type LimitRefusal = {
  code: 'rate_limited' | 'daily_limit_reached';
  /** Which limit refused: for the message and the log. */
  limit: 'visitor' | 'address' | 'widget' | 'daily' | 'sessions' | 'widget sessions' | 'feedback' | 'handoff reads';
  retryAfterSeconds: number;
};

/** A minute's worth of tokens at most: the bucket's size is its rate per minute. */
type Bucket = { tokens: number; at: number; perMinute: number };
type Demand = { key: string; perMinute: number; limit: LimitRefusal['limit'] };

/**
 * The visitor side's limits, held in memory (a restart forgives everyone, as with API keys),
 * except the daily cap, which starts each day from the stored count of questions so that a
 * restart does not reset it. Rates are token buckets of a minute's worth: a visitor may ask
 * their per-minute number at once, then one more each 1/rate of a minute. A refused request
 * takes nothing from any bucket.
 */
export class VisitorLimits {
  private readonly buckets = new Map<string, Bucket>();
  private readonly days = new Map<string, { day: number; count: number }>();
  private takes = 0;

  constructor(
    /** Questions a widget was asked from a time on (the stored count). */
    private readonly askedSince: (widgetId: string, since: number) => number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Takes one question for the visitor's session, their address and the widget, within its daily cap. */
  takeQuestion(widget: { id: string; limits: WidgetLimits }, sessionId: string, address: string): LimitRefusal | null {
    const { visitorQuestionsPerMinute: visitor, widgetQuestionsPerMinute, dailyQuestions } = widget.limits;
    const today = this.today(widget.id);
    const demands: Demand[] = [
      { key: `q:s:${sessionId}`, perMinute: visitor, limit: 'visitor' },
      { key: `q:a:${widget.id}:${addressKey(address)}`, perMinute: visitor * ADDRESS_FACTOR, limit: 'address' },
      { key: `q:w:${widget.id}`, perMinute: widgetQuestionsPerMinute, limit: 'widget' },
    ];
    // A full daily cap wins over a rate: its wait is the longer.
    if (today.count >= dailyQuestions) {
      const wait = Math.ceil((today.day + DAY_MS - this.clock()) / 1000);
      return { code: 'daily_limit_reached', limit: 'daily', retryAfterSeconds: Math.max(1, wait) };
    }
    const refusal = this.take(demands);
    if (!refusal) today.count++;
    return refusal;
  }

  /**
   * Takes one handoff for the visitor's session, their address and the widget, at the rates of
   * their questions but in buckets of their own: leaving a question for the shop after asking the
   * assistant as often as one may must still work. The daily cap counts questions only.
   */
  takeHandoff(widget: { id: string; limits: WidgetLimits }, sessionId: string, address: string): LimitRefusal | null {
    const { visitorQuestionsPerMinute: visitor, widgetQuestionsPerMinute } = widget.limits;
    return this.take([
      { key: `h:s:${sessionId}`, perMinute: visitor, limit: 'visitor' },
      { key: `h:a:${widget.id}:${addressKey(address)}`, perMinute: visitor * ADDRESS_FACTOR, limit: 'address' },
      { key: `h:w:${widget.id}`, perMinute: widgetQuestionsPerMinute, limit: 'widget' },
    ]);
  }

  /** Takes one session start for the visitor's address and the widget. */
  takeSession(widget: { id: string; limits: WidgetLimits }, address: string): LimitRefusal | null {
    return this.take([
      { key: `s:a:${widget.id}:${addressKey(address)}`, perMinute: SESSIONS_PER_ADDRESS_PER_MINUTE, limit: 'sessions' },
      { key: `s:w:${widget.id}`, perMinute: widget.limits.widgetQuestionsPerMinute * WIDGET_SESSIONS_FACTOR, limit: 'widget sessions' },
    ]);
  }

  /** A widget reads its visitor's handoffs when it opens: a few times a minute at most, as feedback. */
  takeHandoffRead(sessionId: string): LimitRefusal | null {
    return this.take([{ key: `hr:s:${sessionId}`, perMinute: FEEDBACK_PER_SESSION_PER_MINUTE, limit: 'handoff reads' }]);
  }

  takeFeedback(sessionId: string): LimitRefusal | null {
    return this.take([{ key: `f:s:${sessionId}`, perMinute: FEEDBACK_PER_SESSION_PER_MINUTE, limit: 'feedback' }]);
  }

  /**
   * Takes a token from each bucket, or from none: the first refusal (in the order given) is
   * reported, with the wait until every bucket would allow the request.
   */
  private take(demands: Demand[]): LimitRefusal | null {
    const now = this.clock();
    if (++this.takes % SWEEP_EVERY === 0) this.sweep(now);
    const buckets = demands.map((d) => this.refilled(d, now));
    const waits = buckets.map((b) => (b.tokens >= 1 ? 0 : Math.max(1, Math.ceil(((1 - b.tokens) * 60) / b.perMinute))));
    const refused = waits.findIndex((w) => w > 0);
    if (refused >= 0) return { code: 'rate_limited', limit: demands[refused]!.limit, retryAfterSeconds: Math.max(...waits) };
    buckets.forEach((b, i) => {
      b.tokens -= 1;
      this.buckets.set(demands[i]!.key, b);
    });
    return null;
  }

  /** A bucket's state now; its size follows the widget's current limit. */
  private refilled({ key, perMinute }: Demand, now: number): Bucket {
    const bucket = this.buckets.get(key) ?? { tokens: perMinute, at: now, perMinute };
    return { tokens: Math.min(perMinute, bucket.tokens + ((now - bucket.at) / 60_000) * perMinute), at: now, perMinute };
  }

  /** The widget's count of questions today (UTC), read from storage once a day. */
  private today(widgetId: string): { day: number; count: number } {
    const day = Math.floor(this.clock() / DAY_MS) * DAY_MS;
    let today = this.days.get(widgetId);
    if (!today || today.day !== day) {
      today = { day, count: this.askedSince(widgetId, day) };
      this.days.set(widgetId, today);
    }
    return today;
  }

  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 60_000) * bucket.perMinute >= bucket.perMinute) this.buckets.delete(key);
    }
  }
}

/**
 * The address a per-address bucket is kept for. An IPv4 address is one subscriber; an IPv6
 * subscriber is given a whole /64 (often more), and can take a new address in it for each
 * request, so IPv6 addresses count by their /64. An IPv4 address written as IPv6 (`::ffff:…`, in
 * any spelling) is that IPv4 address. Anything else (not an IP) is kept as it is.
 */
export function addressKey(address: string): string {
  const bare = address.trim().toLowerCase().replace(/%.*$/, '');
  if (net.isIPv4(bare)) return bare;
  const groups = net.isIPv6(bare) ? ipv6Groups(bare) : null;
  if (!groups) return bare;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.');
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail read as two groups). */
function ipv6Groups(address: string): number[] | null {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}
