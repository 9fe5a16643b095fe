import { useRef, useState } from 'preact/hooks';
import { api, messageOf } from './api';
import type { CreatedProject, Session } from './contract';
import { ErrorMessage, PageHeading, ShownOnce } from './ui';

/**
 * The page of a signed-in person who has no project yet (issue 27): create one on the Free plan
 * and see its first API key once, or, where self-service is off, how to get a project. A refused
 * name is shown under the field, which takes the focus.
 */
export function StartProject({
  session,
  onOpen,
}: {
  session: Session;
  /** Switch the session to the new project (the page then shows it). */
  onOpen: (project: string) => Promise<void>;
}) {
  const [name, setName] = useState('');
  const [formError, setFormError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedProject>();
  const nameInput = useRef<HTMLInputElement>(null);
  const selfService = session.selfService;

  const create = async (event: Event) => {
    event.preventDefault();
    setFormError(undefined);
    setBusy(true);
    try {
      const answer = await api.call('createProject', { body: { name: name.trim() } });
      // The shown-once key takes the focus when it appears (ShownOnce).
      setCreated(answer);
    } catch (failure) {
      setFormError(messageOf(failure));
      nameInput.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  if (created) {
    const { project, firstKey } = created;
    return (
      <>
        <PageHeading focus={false}>Project {project.name} is ready</PageHeading>
        <ShownOnce
          headingId="first-key-heading"
          heading="Its first API key: copy it now"
          warning={
            <>
              <strong>This is the only time the key is shown.</strong> The service keeps only its hash: store
              it somewhere safe now (a secret manager). You can create more keys on the API keys page.
            </>
          }
          inputId="first-api-key"
          label="API key"
          value={firstKey.apiKey}
          what="the API key"
        >
          <p>
            The project&apos;s address: <code id="project-address">{project.address}</code> (Free plan).
          </p>
          <button type="button" class="primary" onClick={() => void onOpen(project.name)}>
            I have stored it: open {project.name}
          </button>
        </ShownOnce>
      </>
    );
  }

  return (
    <>
      <PageHeading focus={true}>Create your first project</PageHeading>
      <p>
        You are signed in as {session.person?.email}, who is not a member of any project yet. An owner of a
        project can invite you; or create a project of your own.
      </p>
      {selfService?.available ? (
        <section aria-labelledby="create-project-heading">
          <h2 id="create-project-heading">New project</h2>
          <form onSubmit={(event) => void create(event)} novalidate>
            <label for="project-name">Name</label>
            <input
              id="project-name"
              ref={nameInput}
              name="name"
              type="text"
              autocomplete="off"
              required
              maxLength={63}
              value={name}
              aria-describedby={formError ? 'project-name-help project-error' : 'project-name-help'}
              aria-invalid={formError ? true : undefined}
              onInput={(event) => setName(event.currentTarget.value)}
            />
            <p id="project-name-help" class="help">
              Its address&apos;s name: 3 to 63 lower-case letters, digits and hyphens, e.g.{' '}
              <code>acme-shop</code>. It starts on the Free plan; you become its owner. Each person may create{' '}
              {selfService.projectsPerPerson} projects.
            </p>
            <ErrorMessage message={formError} id="project-error" />
            <button type="submit" class="primary" disabled={busy}>
              Create project
            </button>
          </form>
        </section>
      ) : (
        <p id="self-service-off">{selfService?.message ?? 'Ask your platform team for a project.'}</p>
      )}
      {selfService ? <p class="help">{selfService.upgrade}</p> : null}
    </>
  );
}
