/**
 * The service's clock. Lambda uses the wall clock; tests and the local server may
 * replace it so that sunsets, caches and rate windows are tested without waiting.
 */
let source: () => number = Date.now;

/** Milliseconds since the Unix epoch. */
export function now(): number {
  return source();
}

/** Replaces the clock (tests and local mode only); returns a function that restores the previous one. */
export function setClock(next: () => number): () => void {
  const previous = source;
  source = next;
  return () => {
    source = previous;
  };
}
