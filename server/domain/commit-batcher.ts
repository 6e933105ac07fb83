/**
 * Group commit: work submitted during one turn of the event loop is written in one transaction,
 * so concurrent requests share a single disk sync instead of paying one each. Each caller still
 * gets its answer only after the transaction holding its work has committed.
 */
export class CommitBatcher<In, Out> {
  private pending: Array<{ input: In; resolve: (out: Out) => void; reject: (error: unknown) => void }> = [];
  private scheduled = false;

  constructor(private readonly commit: (inputs: In[]) => Out[]) {}

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
    try {
      const outputs = this.commit(batch.map((entry) => entry.input));
      batch.forEach((entry, i) => entry.resolve(outputs[i]!));
    } catch {
      // One failing piece of work must not fail the others: commit them one by one.
      for (const entry of batch) {
        try {
          entry.resolve(this.commit([entry.input])[0]!);
        } catch (error) {
          entry.reject(error);
        }
      }
    }
  }
}
