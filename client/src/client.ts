import { ApiError, NetworkError, UNEXPECTED_RESPONSE } from './errors.ts';
import { nextLink, type RateLimitState, readRateLimit } from './headers.ts';
import type { components, operations, paths } from './openapi-types.ts';
import {
  type Answer,
  DEFAULT_RETRY,
  DEFAULT_TIMING,
  type RetryEvent,
  type RetryOptions,
  retrying,
  type Outcome,
  type Timing,
} from './retry.ts';

export type Pet = components['schemas']['Pet'];
export type NewPet = components['schemas']['NewPet'];
export type PetStatus = components['schemas']['PetStatus'];
export type ListPetsQuery = NonNullable<operations['listPets']['parameters']['query']>;
export type OpenApiDocument = operations['getOpenApi']['responses'][200]['content']['application/json'];

/** One page of `listPets`. */
export interface PetPage {
  readonly pets: Pet[];
  /** The `Link: rel="next"` URL; absent on the last page. */
  readonly next?: string;
}

export interface ClientOptions {
  /** The API's base URL, ending in `/v1` (local mode: `http://127.0.0.1:3000/v1`). */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  readonly retry?: RetryOptions;
  /** Called before each wait between two attempts (for logging). */
  readonly onRetry?: (event: RetryEvent) => void;
  /** The fetch to use. @default globalThis.fetch */
  readonly fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Clock, sleep and randomness, for tests. */
  readonly timing?: Partial<Timing>;
}

export interface CallOptions {
  /** Aborts the call, waits included; the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

export interface CreateOptions extends CallOptions {
  /**
   * The `Idempotency-Key` of this create, sent on every attempt so that a retry can never
   * create twice. A new random key by default; `false` sends none, and then the create is
   * never retried.
   */
  readonly idempotencyKey?: string | false;
}

interface Call {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly body?: unknown;
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal;
}

const PETS = '/pets' satisfies keyof paths;
const PET = '/pets/{petId}' satisfies keyof paths;
const OPENAPI = '/openapi.json' satisfies keyof paths;

/** The `Idempotency-Key` value: a structured-field string, as the IETF draft has it. */
function quotedKey(key: string): string {
  // A quoted string carries printable ASCII only; anything else could not be sent at all.
  if (!/^[\x20-\x7e]+$/.test(key)) {
    throw new RangeError('idempotencyKey must be printable ASCII (space to ~), at least one character.');
  }
  return `"${key.replace(/[\\"]/g, '\\$&')}"`;
}

function isErrorBody(value: unknown): value is ApiError['body'] {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Record<string, unknown>;
  return typeof body.code === 'string' && typeof body.message === 'string' && typeof body.status === 'number';
}

/** The Animal Store API: one method per operation, retries as client/README.md describes. */
export class AnimalStoreClient {
  /** The rate-limit state of the last answer that carried the headers. */
  rateLimit: RateLimitState | undefined;

  readonly #base: string;
  readonly #options: ClientOptions;
  readonly #retry: Required<RetryOptions>;
  readonly #timing: Timing;

  constructor(options: ClientOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#options = options;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#timing = { ...DEFAULT_TIMING, ...options.timing };
  }

  /** `listPets`: one page of pets in creation order, optionally of one status. */
  async listPets(query: ListPetsQuery = {}, options: CallOptions = {}): Promise<PetPage> {
    return this.#page(this.#url(PETS, query), options);
  }

  /** Every pet (of `status`, when given), page after page along `Link: rel="next"`; `limit` is the page size. */
  async *allPets(query: Omit<ListPetsQuery, 'cursor'> = {}, options: CallOptions = {}): AsyncGenerator<Pet> {
    let url: string | undefined = this.#url(PETS, query);
    while (url !== undefined) {
      const page: PetPage = await this.#page(url, options);
      yield* page.pets;
      url = page.next;
    }
  }

  /** `createPet`: stores a pet; retried only with an `Idempotency-Key` (see `CreateOptions`). */
  async createPet(pet: NewPet, options: CreateOptions = {}): Promise<Pet> {
    const key = options.idempotencyKey ?? crypto.randomUUID();
    const call = { method: 'POST', url: this.#url(PETS), body: pet, signal: options.signal } as const;
    return this.#json<Pet>(await this.#send(key === false ? call : { ...call, idempotencyKey: key }));
  }

  /**
   * `getPet`: one pet by id.
   * @deprecated Removed by the service on 2030-12-05; use `listPets` or `allPets` with a `status`.
   */
  async getPet(petId: number, options: CallOptions = {}): Promise<Pet> {
    const url = this.#url(PET.replace('{petId}', encodeURIComponent(String(petId))));
    return this.#json<Pet>(await this.#send({ method: 'GET', url, signal: options.signal }));
  }

  /** `getOpenApi`: the interface as an OpenAPI 3.1 document. */
  async getOpenApi(options: CallOptions = {}): Promise<OpenApiDocument> {
    return this.#json<OpenApiDocument>(
      await this.#send({ method: 'GET', url: this.#url(OPENAPI), signal: options.signal }),
    );
  }

  #url(path: string, query: Record<string, string | number | undefined> = {}): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) search.set(name, String(value));
    const text = search.toString();
    return `${this.#base}${path}${text === '' ? '' : `?${text}`}`;
  }

  async #page(url: string, options: CallOptions): Promise<PetPage> {
    const answered = await this.#send({ method: 'GET', url, signal: options.signal });
    const next = nextLink(answered.answer.response.headers, url);
    // The bearer key goes with every request: follow no link off the API's own origin.
    if (next !== undefined && new URL(next).origin !== new URL(this.#base).origin) {
      throw unexpected(`The next page's link leaves the API's origin: ${next}`, answered);
    }
    return { pets: this.#json<Pet[]>(answered), ...(next === undefined ? {} : { next }) };
  }

  #json<T>(answered: Answered): T {
    try {
      return JSON.parse(answered.answer.text) as T;
    } catch {
      throw unexpected('The service answered with a body that is not JSON.', answered);
    }
  }

  async #send(call: Call): Promise<Answered> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.#options.apiKey !== undefined) headers.Authorization = `Bearer ${this.#options.apiKey}`;
    if (call.body !== undefined) headers['Content-Type'] = 'application/json';
    if (call.idempotencyKey !== undefined) headers['Idempotency-Key'] = quotedKey(call.idempotencyKey);
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const fetch = this.#options.fetch ?? ((input, init) => globalThis.fetch(input, init));

    const attempt = async (signal: AbortSignal) => {
      try {
        const response = await fetch(call.url, { method: call.method, headers, body, signal });
        // The body is part of the attempt: a connection cut while it arrives is a network error too.
        const text = await response.text();
        this.rateLimit = readRateLimit(response.headers) ?? this.rateLimit;
        return { response, text };
      } catch (error) {
        if (call.signal?.aborted) throw call.signal.reason;
        return { error };
      }
    };
    const outcome = await retrying(
      attempt,
      {
        idempotent: call.method === 'GET' || call.idempotencyKey !== undefined,
        hasIdempotencyKey: call.idempotencyKey !== undefined,
        ...(call.signal ? { signal: call.signal } : {}),
      },
      this.#retry,
      this.#timing,
      this.#options.onRetry,
    );
    if ('answer' in outcome) return outcome;
    const { failed, info } = outcome;
    if ('error' in failed) throw new NetworkError(failed.error, info);
    throw new ApiError(errorBody(failed), info);
  }
}

/** A 2xx answer and the attempts it took. */
type Answered = Extract<Outcome, { answer: Answer }>;

function unexpected(message: string, { answer, attempts, waitedMs }: Answered): ApiError {
  return new ApiError(
    { code: UNEXPECTED_RESPONSE, message, status: answer.response.status },
    { attempts, waitedMs, reason: 'not-retryable' },
  );
}

function errorBody({ response, text }: Answer): ApiError['body'] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isErrorBody(body)) return body;
  return {
    code: UNEXPECTED_RESPONSE,
    message: `The service answered ${response.status} without an Error body.`,
    status: response.status,
  };
}

/** A client of the Animal Store API. */
export function createClient(options: ClientOptions): AnimalStoreClient {
  return new AnimalStoreClient(options);
}
