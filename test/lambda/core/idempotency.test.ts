import {
  canonicalJson,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  InvalidIdempotencyKeyError,
  parseIdempotencyKey,
  requestFingerprint,
} from '../../../lambda/core/idempotency';

/** The problem an invalid field value is refused for (the message's part between "The Idempotency-Key " and "."). */
function problemOf(fieldValue: string): string {
  try {
    parseIdempotencyKey(fieldValue);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidIdempotencyKeyError);
    expect((error as InvalidIdempotencyKeyError).kind).toBe('invalid_idempotency_key');
    return /^The Idempotency-Key (.*?)\. Send a quoted string/.exec((error as Error).message)?.[1] ?? '';
  }
  throw new Error(`${JSON.stringify(fieldValue)} was accepted`);
}

describe('parseIdempotencyKey', () => {
  it.each([
    ['"8e03978e-40d5-43e8-bc93-6894a57f9324"', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['"order 42, retry"', 'order 42, retry'],
    ['"say \\"hi\\" \\\\ bye"', 'say "hi" \\ bye'],
    ['  "padded"\t', 'padded'],
    ['"!#$%&()*+,-./:;<=>?@[]^_`{|}~"', '!#$%&()*+,-./:;<=>?@[]^_`{|}~'],
  ])('reads the quoted string %s (the draft form)', (fieldValue, key) => {
    expect(parseIdempotencyKey(fieldValue)).toBe(key);
  });

  it.each([
    ['8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['01HZX3M9RZ8T5V6W7X8Y9ZABCD'],
    ["a!#$%&'*+-.^_`|~:/z"],
  ])('accepts the bare token %s as it is', (fieldValue) => {
    expect(parseIdempotencyKey(fieldValue)).toBe(fieldValue);
  });

  it(`takes ${IDEMPOTENCY_KEY_MAX_LENGTH} characters, counted after unescaping, and not one more`, () => {
    const longest = 'k'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH);
    expect(parseIdempotencyKey(longest)).toBe(longest);
    expect(parseIdempotencyKey(`"${longest}"`)).toBe(longest);
    expect(parseIdempotencyKey(`"${'\\"'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH)}"`)).toBe(
      '"'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH),
    );
    expect(problemOf(`${longest}k`)).toBe('is longer than 255 characters');
    expect(problemOf(`"${longest}k"`)).toBe('is longer than 255 characters');
  });

  it.each([
    ['', 'is empty'],
    [' \t ', 'is empty'],
    ['""', 'is empty'],
    ['"abc', 'has an opening quote but no closing quote'],
    ['"abc\\"', 'has an opening quote but no closing quote'],
    ['"abc"x', 'has something after its closing quote (parameters and lists are not accepted)'],
    ['"abc";expires=1', 'has something after its closing quote (parameters and lists are not accepted)'],
    ['"a", "b"', 'has something after its closing quote (parameters and lists are not accepted)'],
    ['"a\\nb"', 'has a backslash that escapes neither " nor \\'],
    ['"a\\', 'has a backslash that escapes neither " nor \\'],
    ['"caf\u00e9"', 'contains a character that is not printable ASCII'],
    ['"tab\there"', 'contains a character that is not printable ASCII'],
    ['nul\u0000', 'contains a character that is not printable ASCII'],
    ['two words', "is not quoted and contains a character other than letters, digits and !#$%&'*+-.^_`|~:/"],
    ['a,b', "is not quoted and contains a character other than letters, digits and !#$%&'*+-.^_`|~:/"],
    ['abc"', "is not quoted and contains a character other than letters, digits and !#$%&'*+-.^_`|~:/"],
    ['base64==', "is not quoted and contains a character other than letters, digits and !#$%&'*+-.^_`|~:/"],
  ])('refuses %j: it %s', (fieldValue, problem) => {
    expect(problemOf(fieldValue)).toBe(problem);
  });

  it('says how to send a valid key', () => {
    expect(() => parseIdempotencyKey('')).toThrow(
      'The Idempotency-Key is empty. Send a quoted string of 1 to 255 printable ASCII characters, e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324".',
    );
  });
});

describe('request fingerprints', () => {
  it('write JSON with sorted keys at every level, without spaces', () => {
    expect(canonicalJson({ b: [3, { z: 1, a: 'x' }], a: null, c: 'é"' })).toBe(
      '{"a":null,"b":[3,{"a":"x","z":1}],"c":"é\\""}',
    );
  });

  it('are the same for bodies that differ only in key order', () => {
    expect(requestFingerprint({ name: 'Rex', categoryId: 3, status: 'sold' })).toBe(
      requestFingerprint(JSON.parse('{ "status": "sold", "categoryId": 3, "name": "Rex" }')),
    );
  });

  it('differ when a value, a type or a field differs', () => {
    const base = requestFingerprint({ name: 'Rex', categoryId: 3 });
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint({ name: 'Rex', categoryId: 4 })).not.toBe(base);
    expect(requestFingerprint({ name: 'Rex', categoryId: '3' })).not.toBe(base);
    expect(requestFingerprint({ name: 'Rex', categoryId: 3, status: 'available' })).not.toBe(base);
  });
});

describe('idempotency refusals', () => {
  it('carry their kind, and the in-use one its Retry-After', () => {
    const inUse = new IdempotencyKeyInUseError(7);
    expect([inUse.kind, inUse.retryAfterSeconds]).toEqual(['idempotency_key_in_use', 7]);
    expect(new IdempotencyKeyReusedError().kind).toBe('idempotency_key_reused');
  });
});
