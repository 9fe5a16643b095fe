import { AsyncLocalStorage } from 'node:async_hooks';
import TestEnvironment from './test-environment';

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** What a storage's run sees after `between` has run, from a continuation that waited through it. */
async function seenAcross(
  storage: AsyncLocalStorage<string>,
  between: () => Promise<void>,
): Promise<unknown> {
  const { opened, open } = gate();
  const seen = storage.run('in the run', async () => {
    await opened;
    return storage.getStore();
  });
  await between();
  open();
  return seen;
}

describe("the tests' environment", () => {
  const newEnvironment = () =>
    new TestEnvironment(
      {
        globalConfig: {} as never,
        projectConfig: { testEnvironmentOptions: {}, globals: {} } as never,
      },
      { console, docblockPragmas: {}, testPath: __filename },
    );

  it("disables, when a file ends, a storage that ran in it: it no longer costs later files' promises", async () => {
    const environment = newEnvironment();
    await environment.setup();
    const storage = new AsyncLocalStorage<string>();
    // Disabled, a storage exits the contexts it had: the waiting run sees none.
    expect(await seenAcross(storage, () => environment.teardown())).toBeUndefined();
  });

  it('leaves a storage alone while its file runs', async () => {
    const environment = newEnvironment();
    await environment.setup();
    const storage = new AsyncLocalStorage<string>();
    expect(await seenAcross(storage, async () => {})).toBe('in the run');
    await environment.teardown();
  });
});
