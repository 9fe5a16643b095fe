declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}

declare module 'dynalite/db' {
  /** The module object itself (CommonJS), so that its functions can be wrapped. */
  const db: {
    /** The condition check every conditional write runs, inside the item's lock. */
    checkConditional(
      data: Record<string, unknown>,
      existingItem: Record<string, unknown> | undefined,
    ): (Error & { body: Record<string, unknown> }) | null;
  };
  export default db;
}

/** A write action's parameter types: dynalite drops any parameter not listed. */
declare module 'dynalite/validations/putItem' {
  export const types: Record<string, unknown>;
}
declare module 'dynalite/validations/updateItem' {
  export const types: Record<string, unknown>;
}
declare module 'dynalite/validations/deleteItem' {
  export const types: Record<string, unknown>;
}
