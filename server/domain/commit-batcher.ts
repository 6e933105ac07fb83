/** The outcome of one piece of work in a batch: each caller learns its own. */
export type Settled<Out> = { ok: true; out: Out } | { ok: false; error: unknown };

/**
 * Batches handed to the writer at once: one being written and the next one waiting, so the writer
 * never waits for the event loop, while everything arriving meanwhile gathers into one batch.
 */
const BATCHES_AT_WRITER = 2;

/**
 * Group commit: work submitted during one turn of the event loop, or while the writer has its
 * hands full, goes to it together, so concurrent requests share one transaction, one disk sync
 * and one hand-over to the writer instead of paying one each.
 * Each caller still gets its answer only once the writer reports its work durable.
 */
export class CommitBatcher<In, Out> {
  private pending: Array<{ input: In; resolve: (out: Out) => void; reject: (error: unknown) => void }> = [];
  private scheduled = false;
  private writing = 0;

  /** `write` resolves, once everything in the batch is durable, with one outcome per input. */
  constructor(private readonly write: (inputs: In[]) => Promise<Array<Settled<Out>>>) {}

  submit(input: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      if (!this.scheduled && this.writing < BATCHES_AT_WRITER) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0 || this.writing >= BATCHES_AT_WRITER) return;
    const batch = this.pending;
    this.pending = [];
    this.writing++;
    this.write(batch.map((entry) => entry.input))
      .then(
        (settled) =>
          batch.forEach((entry, i) => {
            const result = settled[i];
            if (result?.ok) entry.resolve(result.out);
            else entry.reject(result ? result.error : new Error('The writer gave no outcome for this work.'));
          }),
        (error: unknown) => batch.forEach((entry) => entry.reject(error)),
      )
      .finally(() => {
        this.writing--;
        this.flush();
      });
  }
}

/**
 * Commits all inputs at once; when that fails, one by one, so one failing piece of work does not
 * fail the others.
 */
export function commitSettled<In, Out>(commit: (inputs: In[]) => Out[], inputs: In[]): Array<Settled<Out>> {
  try {
    return commit(inputs).map((out) => ({ ok: true, out }));
  } catch {
    return inputs.map((input) => {
      try {
        return { ok: true, out: commit([input])[0]! };
      } catch (error) {
        return { ok: false, error };
      }
    });
  }
}
