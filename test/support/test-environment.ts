import { AsyncLocalStorage } from 'node:async_hooks';
import NodeEnvironment from 'jest-environment-node';

/**
 * jest's node environment, which also disables, when a test file ends, every AsyncLocalStorage
 * that ran in it.
 *
 * Node.js keeps a storage that has run in its async hooks until `disable()`, and each one costs
 * every promise the process makes from then on. A jest worker loads a test file's modules afresh
 * for each file, so each file that started the local server (its invocation store), ran a tool
 * command in process, drove Playwright or started the OpenID provider left one more storage
 * behind: 200,000 awaits took 0.17 s of CPU after the first such file and 1.4 s after the
 * twentieth, in every later file of the worker (doc/testing.md).
 */
export default class TestEnvironment extends NodeEnvironment {
  override async setup(): Promise<void> {
    storagesThatRan();
    await super.setup();
  }

  override async teardown(): Promise<void> {
    const ran = storagesThatRan();
    for (const storage of ran) storage.disable();
    ran.clear();
    await super.teardown();
  }
}

type Storage = AsyncLocalStorage<unknown>;
/** Where the worker keeps the storages that ran: `node:async_hooks` is the worker's own, shared by every file's modules. */
const RAN = Symbol.for('animal-store.test-environment.storages-that-ran');

/**
 * The storages that have run since the current test file began (a worker runs one file at a
 * time). The first call in a worker wraps the two ways a storage enters the async hooks, `run`
 * and `enterWith`, to note the storage.
 */
function storagesThatRan(): Set<Storage> {
  const prototype = AsyncLocalStorage.prototype as Storage & { [RAN]?: Set<Storage> };
  const noted = prototype[RAN];
  if (noted) return noted;
  const ran = new Set<Storage>();
  prototype[RAN] = ran;
  const { run, enterWith } = prototype;
  prototype.run = function notedRun(this: Storage, ...args: Parameters<typeof run>) {
    ran.add(this);
    return run.apply(this, args);
  } as typeof run;
  prototype.enterWith = function notedEnterWith(this: Storage, store: unknown) {
    ran.add(this);
    enterWith.call(this, store);
  };
  return ran;
}
