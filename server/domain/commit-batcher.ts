/**
 * Group commit: work submitted during one turn of the event loop is written in one transaction,
 * and concurrent requests share a single disk sync instead of paying one each. Each caller still
 * gets its answer only after the transaction holding its work is durable (`durable` resolved).
 */
export class CommitBatcher<In, Out> {
  private pending: Array<{ input: In; resolve: (out: Out) => void; reject: (error: unknown) => void }> = [];
  private scheduled = false;

  constructor(
    private readonly commit: (inputs: In[]) => Out[],
    private readonly durable: () => Promise<void>,
  ) {}

  submit(input: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.scheduled = false;
    const settled = this.commitAll(batch.map((entry) => entry.input));
    this.durable().then(
      () => batch.forEach((entry, i) => settle(entry, settled[i]!)),
      (error: unknown) => batch.forEach((entry) => entry.reject(error)),
    );
  }

  private commitAll(inputs: In[]): Array<{ ok: true; out: Out } | { ok: false; error: unknown }> {
    try {
      return this.commit(inputs).map((out) => ({ ok: true, out }));
    } catch {
      // One failing piece of work must not fail the others: commit them one by one.
      return inputs.map((input) => {
        try {
          return { ok: true, out: this.commit([input])[0]! };
        } catch (error) {
          return { ok: false, error };
        }
      });
    }
  }
}

function settle<Out>(
  entry: { resolve: (out: Out) => void; reject: (error: unknown) => void },
  result: { ok: true; out: Out } | { ok: false; error: unknown },
): void {
  if (result.ok) entry.resolve(result.out);
  else entry.reject(result.error);
}
