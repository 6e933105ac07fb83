// The parts of autocannon's API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  type Request = { method?: string; path?: string; headers?: Record<string, string>; body?: string };
  type Options = {
    url: string;
    method?: string;
    connections?: number;
    duration?: number;
    amount?: number;
    overallRate?: number;
    headers?: Record<string, string>;
    body?: string;
    requests?: Array<Request & { setupRequest?: (req: Request) => Request }>;
  };
  type Histogram = { average: number; p50: number; p90: number; p99: number; max: number };
  type Result = { requests: Histogram & { total: number }; latency: Histogram; errors: number; non2xx: number; timeouts: number };
  /** The run under way: a promise of its result that can also be stopped early. */
  type Instance = Promise<Result> & {
    stop(): void;
    /** Each answer as it arrives, with how long it took. */
    on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, ms: number) => void): Instance;
  };
  export default function autocannon(options: Options): Instance;
}
