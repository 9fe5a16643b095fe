import {
  isTargetId,
  newTargetId,
  ownershipRecordName,
  ownershipToken,
  projectTarget,
} from '../../../../lambda/core/custom-domains/project-target';

describe("a project's target", () => {
  it('is a random DNS label of 20 base32 characters, a fresh one each time', () => {
    const ids = Array.from({ length: 200 }, () => newTargetId());
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z2-7]{19}$/);
    expect(ids.every(isTargetId)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('is a name under the shared target', () => {
    expect(projectTarget('k3v7qmx2hzt7wprd5c4a', 'domains.animalstore.example')).toBe(
      'k3v7qmx2hzt7wprd5c4a.domains.animalstore.example',
    );
  });

  it('has an ownership token of its own, public and derived from the id alone', () => {
    const token = ownershipToken('k3v7qmx2hzt7wprd5c4a');
    expect(token).toMatch(/^animal-store-verification=[0-9a-f]{32}$/);
    expect(ownershipToken('k3v7qmx2hzt7wprd5c4a')).toBe(token);
    expect(ownershipToken('b3v7qmx2hzt7wprd5c4a')).not.toBe(token);
    expect(ownershipRecordName('example.com')).toBe('_animal-store.example.com');
  });
});
