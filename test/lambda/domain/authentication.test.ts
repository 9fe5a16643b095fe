import { type ApiKeyRecord, issueApiKey, parseApiKey } from '../../../lambda/domain/api-key';
import { authenticate } from '../../../lambda/domain/authentication';

const issued = issueApiKey('pro', 'test', new Date('2026-01-01T00:00:00Z'));
const records = new Map<string, ApiKeyRecord>([[issued.record.keyId, issued.record]]);
const lookup = async (keyId: string) => records.get(keyId);

describe('API keys', () => {
  it('have a public id, 256 random bits of secret, and a stored hash that is not the secret', () => {
    const parsed = parseApiKey(issued.apiKey);
    expect(parsed?.keyId).toBe(issued.record.keyId);
    expect(parsed?.secret).toHaveLength(43);
    expect(JSON.stringify(issued.record)).not.toContain(parsed?.secret);
    expect(issued.record.usageId).not.toContain(parsed?.secret);
    expect(issued.record.secretHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('are different every time', () => {
    const other = issueApiKey('pro', 'test', new Date());
    expect(other.apiKey).not.toBe(issued.apiKey);
    expect(other.record.usageId).not.toBe(issued.record.usageId);
  });
});

describe('authenticate', () => {
  it('accepts a valid key with the scheme in any case', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const result = await authenticate([`${scheme} ${issued.apiKey}`], lookup);
      expect(result).toEqual({
        principal: { authenticated: true, keyId: issued.record.keyId, plan: 'pro' },
        usageId: issued.record.usageId,
      });
    }
  });

  it('reports a missing header', async () => {
    expect((await authenticate([], lookup)).principal).toEqual({
      authenticated: false,
      failure: 'missing_api_key',
    });
  });

  it.each([`Basic ${issued.apiKey}`, 'Bearer', 'Bearer ', issued.apiKey, `Bearer ${issued.apiKey} extra`])(
    'refuses the malformed header %j',
    async (header) => {
      expect((await authenticate([header], lookup)).principal).toEqual({
        authenticated: false,
        failure: 'invalid_authorization',
      });
    },
  );

  it('refuses two Authorization headers', async () => {
    const header = `Bearer ${issued.apiKey}`;
    expect((await authenticate([header, header], lookup)).principal).toMatchObject({ authenticated: false });
  });

  it('refuses unknown, wrong-secret and revoked keys alike', async () => {
    const unknown = issueApiKey('free', 'never stored', new Date()).apiKey;
    const wrongSecret = `${issued.apiKey.slice(0, -1)}${issued.apiKey.endsWith('A') ? 'B' : 'A'}`;
    const revoked = issueApiKey('free', 'revoked', new Date());
    records.set(revoked.record.keyId, { ...revoked.record, revokedAt: new Date().toISOString() });
    for (const key of [unknown, wrongSecret, revoked.apiKey, 'not-a-key']) {
      expect((await authenticate([`Bearer ${key}`], lookup)).principal).toEqual({
        authenticated: false,
        failure: 'invalid_api_key',
      });
    }
  });

  it('reports an unavailable store as such, not as a bad key', async () => {
    const failing = async () => {
      throw new Error('connection refused');
    };
    expect((await authenticate([`Bearer ${issued.apiKey}`], failing)).principal).toEqual({
      authenticated: false,
      failure: 'service_unavailable',
    });
  });
});
