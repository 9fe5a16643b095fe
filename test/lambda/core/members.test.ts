import { memberId, personKey, personOfMemberId } from '../../../lambda/core/members';
import { ACTIONS, mayManageMember, permissionsOf, ROLES } from '../../../lambda/core/permissions';

describe('member ids', () => {
  it('name the person they were made from, issuer with slashes and all', () => {
    const person = { issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Ab', subject: 'a#b/c' };
    const id = memberId(person);
    expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(personOfMemberId(id)).toEqual(person);
    expect(personKey(person)).toBe(`${person.issuer}#${person.subject}`);
  });

  it('name nobody when they are not one', () => {
    for (const text of [
      '',
      'not base64!',
      Buffer.from('no-separator').toString('base64url'),
      'A'.repeat(701),
    ]) {
      expect(personOfMemberId(text)).toBeUndefined();
    }
  });
});

describe('the permission table', () => {
  it('gives each role fewer rights than the one above it', () => {
    const counts = ROLES.map((role) => permissionsOf(role).length);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(permissionsOf('owner')).toEqual(ACTIONS);
    for (const role of ROLES)
      expect(permissionsOf(role)).toEqual(expect.arrayContaining(['seeUsage', 'listKeys']));
  });

  it('lets only an owner make, unmake or remove an owner', () => {
    expect(mayManageMember('admin', 'changeRoles', ['viewer', 'developer'])).toBe(true);
    expect(mayManageMember('admin', 'changeRoles', ['viewer', 'owner'])).toBe(false);
    expect(mayManageMember('admin', 'manageMembers', ['owner'])).toBe(false);
    expect(mayManageMember('owner', 'manageMembers', ['owner'])).toBe(true);
    expect(mayManageMember('developer', 'manageMembers', ['viewer'])).toBe(false);
  });
});
