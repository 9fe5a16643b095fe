declare module 'autocannon' {
  /** The part of autocannon 8's API the bench uses. */
  interface Client {
    setHeaders(headers: Record<string, string>): void;
    setRequest(request: { method?: string; path?: string; headers?: Record<string, string> }): void;
    /** Replaces every request the client cycles through (setRequest changes only the first). */
    setRequests(requests: { method?: string; path?: string; headers?: Record<string, string> }[]): void;
  }

  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    setupClient?: (client: Client) => void;
  }

  interface Histogram {
    average: number;
    p50: number;
    p99: number;
  }

  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    requests: Histogram & { total: number };
    latency: Histogram;
    statusCodeStats: Record<string, { count: number }>;
  }

  export default function autocannon(options: Options): Promise<Result>;
}
