import { format } from 'node:util';

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir'] as const;

export interface CapturedOutput {
  /** Everything written so far, in order. */
  text(): string;
  /** The non-empty lines written so far. */
  lines(): string[];
  /** Puts the real streams and console methods back. */
  restore(): void;
}

/**
 * Captures everything this process writes while it runs: process.stdout and
 * process.stderr (where structured loggers with their own Console write, e.g.
 * Powertools) and every console method (which jest replaces with its own buffer).
 * Nothing captured reaches the terminal.
 */
export function captureOutput(): CapturedOutput {
  const chunks: string[] = [];
  const streamSpies = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof stream.write),
  );
  const consoleSpies = CONSOLE_METHODS.map((method) =>
    jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      chunks.push(`${format(...args)}\n`);
    }),
  );
  return {
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line.trim() !== ''),
    restore: () => {
      for (const spy of [...streamSpies, ...consoleSpies]) spy.mockRestore();
    },
  };
}
