import { ID_EPOCH_MS, newPetId, parsePetId } from '../../../lambda/core/pet-id';

describe('pet ids', () => {
  it('are positive safe integers that grow with time', () => {
    const early = newPetId(Date.UTC(2026, 0, 1));
    const later = newPetId(Date.UTC(2026, 0, 1) + 1);
    expect(Number.isSafeInteger(early)).toBe(true);
    expect(early).toBeGreaterThan(0);
    expect(later).toBeGreaterThan(early);
  });

  it('stay within 2^53 - 1 until the id clock runs out, then refuse', () => {
    const lastMs = ID_EPOCH_MS + 2 ** 41 - 1;
    expect(newPetId(lastMs)).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
    expect(() => newPetId(lastMs + 1)).toThrow(/out of range/);
  });

  it.each([
    ['1', 1],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('parses %s', (text, id) => {
    expect(parsePetId(text)).toBe(id);
  });

  it.each(['0', '-1', '01', '1.5', '1e3', 'abc', '', ' 1', '9007199254740992', '99999999999999999999'])(
    'refuses %j',
    (text) => {
      expect(parsePetId(text)).toBeUndefined();
    },
  );
});
