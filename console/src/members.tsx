import { useContext, useEffect, useState } from 'preact/hooks';
import { ROLES, type Role } from '../../lambda/core/permissions';
import { api, messageOf } from './api';
import { Invitations } from './invitations';
import type { ConsoleAnswer } from '../../lambda/api/console-routes';
import { useCan } from './permissions';
import { Announce, ErrorMessage, PageHeading } from './ui';

type Member = ConsoleAnswer<'listMembers'>['members'][number];

/**
 * The project's members and their roles. A caller who may change roles gets a role menu per
 * member, one who may remove members a Remove button; the API enforces the same table (only an
 * owner touches owners, the last owner stays) and its refusal is shown as it is worded.
 */
export function Members({ focus }: { focus: boolean }) {
  const can = useCan();
  const announce = useContext(Announce);
  const [members, setMembers] = useState<readonly Member[]>();
  const [error, setError] = useState<string>();
  const load = async () => {
    try {
      setMembers((await api.call('listMembers')).members);
      setError(undefined);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  useEffect(() => void load(), []);
  const setRole = async (member: Member, role: Role) => {
    try {
      await api.call('setMemberRole', { path: { memberId: member.memberId }, body: { role } });
      announce(`${member.email} is now ${role}.`);
    } catch (failure) {
      setError(messageOf(failure));
    }
    await load();
  };
  const remove = async (member: Member) => {
    try {
      await api.call('removeMember', { path: { memberId: member.memberId } });
      announce(`${member.email} was removed from the project.`);
    } catch (failure) {
      setError(messageOf(failure));
    }
    await load();
  };
  return (
    <>
      <PageHeading focus={focus}>Members</PageHeading>
      <section aria-labelledby="members-heading">
        <h2 id="members-heading">People in this project</h2>
        <ErrorMessage message={error} />
        {members === undefined ? (
          error ? null : (
            <p>Loading…</p>
          )
        ) : (
          <ul class="members">
            {members.map((member) => (
              <li key={member.memberId} data-member={member.email}>
                <strong>{member.name ?? member.email}</strong> <span>{member.email}</span>
                {can('changeRoles') ? (
                  <>
                    <label for={`role-${member.memberId}`}>Role of {member.email}</label>
                    <select
                      id={`role-${member.memberId}`}
                      value={member.role}
                      onChange={(event) => void setRole(member, event.currentTarget.value as Role)}
                    >
                      {ROLES.map((role) => (
                        <option key={role} value={role}>
                          {role}
                        </option>
                      ))}
                    </select>
                  </>
                ) : (
                  <span class="badge">{member.role}</span>
                )}
                {can('manageMembers') ? (
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Remove ${member.email}`}
                    onClick={() => void remove(member)}
                  >
                    Remove
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </section>
      <Invitations />
    </>
  );
}
