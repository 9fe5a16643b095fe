import { decodeCursor, encodeCursor } from '../../../lambda/core/page-cursor';

const KEY = 'test-key';

describe('page cursors', () => {
  it('round-trips the last id and the filter', () => {
    const text = encodeCursor({ afterId: 123456789, status: 'pending' }, KEY);
    expect(decodeCursor(text, 'pending', KEY)).toEqual({ cursor: { afterId: 123456789, status: 'pending' } });
    const all = encodeCursor({ afterId: Number.MAX_SAFE_INTEGER }, KEY);
    expect(decodeCursor(all, undefined, KEY)).toEqual({ cursor: { afterId: Number.MAX_SAFE_INTEGER } });
  });

  it('is opaque: no id or attribute name readable in it', () => {
    const text = encodeCursor({ afterId: 987654321, status: 'sold' }, KEY);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    const decoded = Buffer.from(text, 'base64url').toString('latin1');
    expect(decoded).not.toContain('987654321');
    expect(decoded).not.toMatch(/sold|id|status/);
  });

  it('refuses any changed character', () => {
    const text = encodeCursor({ afterId: 42 }, KEY);
    for (let index = 0; index < text.length; index++) {
      const flipped = text[index] === 'A' ? 'B' : 'A';
      const tampered = text.slice(0, index) + flipped + text.slice(index + 1);
      expect(decodeCursor(tampered, undefined, KEY)).toEqual({ problem: 'corrupt' });
    }
  });

  it('refuses a cursor signed with another key (another environment)', () => {
    expect(decodeCursor(encodeCursor({ afterId: 42 }, 'other'), undefined, KEY)).toEqual({
      problem: 'corrupt',
    });
  });

  it.each(['', 'abc', '!!!!', 'a'.repeat(200)])('refuses garbage %j', (text) => {
    expect(decodeCursor(text, undefined, KEY)).toEqual({ problem: 'corrupt' });
  });

  it('refuses a cursor used with a different status filter', () => {
    const available = encodeCursor({ afterId: 7, status: 'available' }, KEY);
    expect(decodeCursor(available, 'sold', KEY)).toEqual({ problem: 'filter-mismatch' });
    expect(decodeCursor(available, undefined, KEY)).toEqual({ problem: 'filter-mismatch' });
    expect(decodeCursor(encodeCursor({ afterId: 7 }, KEY), 'sold', KEY)).toEqual({
      problem: 'filter-mismatch',
    });
  });
});
