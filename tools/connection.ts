import type { ApiKeyRepository } from '../lambda/store/api-key-repository';
import type { PetRepository } from '../lambda/store/pet-repository';
import type { ProjectRepository } from '../lambda/store/project-repository';
import type { DomainCount, InvitationRemoval, MemberRemoval, ProjectGateway } from './project-admin';

/**
 * What the keys and projects tools act on: the local store (`npm start`) or a deployed
 * environment (`--stage`). Both give the same repositories; only a stage has a gateway.
 */
export interface ToolConnection {
  readonly keys: ApiKeyRepository;
  readonly projects: ProjectRepository;
  readonly pets: PetRepository;
  /** The gateway keys of a deployed stage; none in local mode. */
  readonly gateway?: ProjectGateway;
  /** Counts a project's custom domains (the domains service's table). */
  readonly domainsOf: DomainCount;
  /** Removes a project's members (the members table), with the project or before its name is used again. */
  readonly removeMembersOf: MemberRemoval;
  /** Removes a project's invitations and their counter of places (the invitations table), with the project. */
  readonly removeInvitationsOf: InvitationRemoval;
  /** Resolves once authorizers can no longer hand out a usage identifier replaced just now. */
  readonly waitForKeyCaches?: () => Promise<void>;
  /** The address a project is served at, e.g. `https://acme.animalstore.example/v1`. */
  addressOf(project: string): string;
  /** Releases the clients this connection made. */
  close(): void;
}
