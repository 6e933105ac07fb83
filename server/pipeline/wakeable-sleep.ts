/**
 * A worker thread's idle wait: `sleep` resolves after `ms`, or at once when `wake` is called (a
 * message from the pool: work came, or stop). One per thread.
 */
export function wakeableSleep(): { sleep: (ms: number) => Promise<void>; wake: () => void } {
  let waking: (() => void) | null = null;
  return {
    sleep: (ms) =>
      new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          waking = null;
          resolve();
        }
        waking = done;
      }),
    wake: () => waking?.(),
  };
}
