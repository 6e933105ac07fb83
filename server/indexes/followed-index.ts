import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ChangeLogFeed, Snapshot } from '../storage/change-log-feed.ts';

/**
 * Background work per index and turn of the event loop. Requests wait for it, and a push takes
 * several turns to be acknowledged: loads in slices of ~30 ms held pushes for hundreds of
 * milliseconds each for the whole load after a start-up, while 1 ms barely lengthens a load on an
 * idle server, which takes turn after turn (bench/startup-load.ts, docs/benchmarks.md).
 */
const TURN_BUDGET_MS = 1;
/** The same while a search waits for the load (`ready`): it ends sooner, requests wait a bit more. */
const WAITED_FOR_TURN_BUDGET_MS = 8;

/**
 * An in-memory copy of indexed rows that follows the database: loaded from a feed's snapshot in
 * the background (`load`, a millisecond per turn of the event loop, so requests keep being
 * answered; a search awaits `ready`), then kept current by replaying the feed's change log: in the
 * background by `follow` (also a millisecond per turn: a busy pipeline writes thousands of rows
 * between two calls), and before a search by `refresh` (one indexed read when nothing changed), so
 * a search sees exactly the committed index, whichever process or thread wrote it. Subclasses hold
 * the data.
 */
export abstract class FollowedIndex<Entry> {
  /** Position in the change log the copy reflects; null until loaded. */
  private seq: number | null = null;
  private loading: Snapshot<Entry> | null = null;
  private catchingUp = false;
  private stopped = false;
  /** Searches waiting for the load to end (`ready`). */
  private waiting: Array<() => void> = [];

  constructor(
    private readonly feed: ChangeLogFeed<unknown, Entry>,
    /** Entries read or changes applied in the background between two looks at the clock (~1 ms). */
    private readonly step: number,
  ) {}

  /** Forgets everything (a load starts). */
  protected abstract clear(): void;
  /** Adds the row, or replaces what its key held. */
  protected abstract put(entry: Entry): void;
  /** Drops whatever the key held (keys can be reused once freed). */
  protected abstract remove(key: number): void;

  get loaded(): boolean {
    return this.seq !== null;
  }

  async load(): Promise<void> {
    if (this.seq !== null || this.loading) return;
    this.begin();
    for (;;) {
      const until = performance.now() + (this.waiting.length ? WAITED_FOR_TURN_BUDGET_MS : TURN_BUDGET_MS);
      do {
        // Gone when stopped, or when a search's `refresh` finished the load meanwhile.
        if (!this.loading || this.read(this.step)) return;
      } while (performance.now() < until);
      await nextTurn();
    }
  }

  /**
   * Resolves once the copy is loaded, starting the load if none is under way. The load goes on a
   * turn at a time, so the event loop keeps answering other requests meanwhile, where finishing it
   * at once (`refresh`) would hold them for seconds with a large index.
   */
  ready(): Promise<void> {
    if (this.seq !== null || this.stopped) return Promise.resolve();
    const loaded = new Promise<void>((resolve) => this.waiting.push(resolve));
    if (!this.loading) void this.load();
    return loaded;
  }

  /** Starts a background load if none has run yet, else applies what was committed since. */
  follow(): void {
    if (this.stopped) return;
    if (this.seq !== null) void this.catchUp();
    else if (!this.loading) void this.load();
  }

  /** Stops background work for good (the connection is about to close). */
  stop(): void {
    this.stopped = true;
    this.loading?.close();
    this.loading = null;
    this.wake();
  }

  private wake(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  /** Brings the copy up to date, finishing or redoing the load at once when needed. */
  protected refresh(): void {
    if (this.seq === null) {
      if (!this.loading) this.begin();
      this.read(Infinity);
    }
    if (this.apply(Infinity) === 'behind') {
      this.seq = null;
      this.refresh();
    }
  }

  private async catchUp(): Promise<void> {
    if (this.catchingUp) return;
    this.catchingUp = true;
    try {
      for (;;) {
        const until = performance.now() + TURN_BUDGET_MS;
        let outcome: ReturnType<typeof this.apply>;
        do outcome = this.seq === null || this.stopped ? 'done' : this.apply(this.step);
        while (outcome === 'more' && performance.now() < until);
        if (outcome === 'done') return;
        if (outcome === 'behind') {
          this.seq = null;
          return void this.load();
        }
        await nextTurn();
      }
    } finally {
      this.catchingUp = false;
    }
  }

  /** Applies up to `limit` committed changes: 'more' when others may follow. */
  private apply(limit: number): 'done' | 'more' | 'behind' {
    const changes = this.feed.changesSince(this.seq!, limit);
    if (changes === null) return 'behind';
    for (const change of changes) {
      this.remove(change.key);
      if (change.current) this.put(change.current);
      this.seq = change.seq;
    }
    return changes.length === limit ? 'more' : 'done';
  }

  private begin(): void {
    this.clear();
    this.loading = this.feed.snapshot();
  }

  /** Reads up to `count` entries of the load in progress; true when it is complete. */
  private read(count: number): boolean {
    const loading = this.loading!;
    for (let read = 0; read < count; read++) {
      const next = loading.entries.next();
      if (next.done) {
        loading.close();
        this.loading = null;
        this.seq = loading.seq;
        this.wake();
        return true;
      }
      this.put(next.value);
    }
    return false;
  }
}
