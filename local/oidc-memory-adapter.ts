/**
 * The local OpenID provider's storage: its codes, sessions, interactions and grants, in this
 * process's memory, so that a restart (with new signing keys) forgets them all, as intended in
 * local mode. `oidc-provider`'s own in-memory adapter warns that it is for quick starts; this
 * is the same, deliberately, with one store per provider instance (two in a test stay apart).
 */
type Payload = Record<string, unknown> & {
  grantId?: string;
  uid?: string;
  userCode?: string;
  consumed?: number;
};

interface Entry {
  readonly payload: Payload;
  /** Epoch milliseconds; undefined never ends. */
  readonly expiresAt?: number;
}

/** An adapter class for one provider: `new Provider(issuer, { adapter: memoryAdapter() })`. */
export function memoryAdapter(): new (model: string) => object {
  const entries = new Map<string, Entry>();
  const live = (key: string): Payload | undefined => {
    const entry = entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry?.payload;
  };
  return class MemoryAdapter {
    constructor(private readonly model: string) {}
    private key(id: string): string {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : undefined;
      entries.set(this.key(id), { payload, ...(expiresAt ? { expiresAt } : {}) });
      if (payload.uid)
        entries.set(`${this.model}:uid:${payload.uid}`, {
          payload: { id },
          ...(expiresAt ? { expiresAt } : {}),
        });
      if (payload.userCode) entries.set(`${this.model}:userCode:${payload.userCode}`, { payload: { id } });
      if (payload.grantId) {
        const grant = `grant:${payload.grantId}`;
        const ids = (live(grant)?.keys as string[] | undefined) ?? [];
        entries.set(grant, { payload: { keys: [...ids, this.key(id)] } });
      }
    }
    async find(id: string): Promise<Payload | undefined> {
      return live(this.key(id));
    }
    async findByUid(uid: string): Promise<Payload | undefined> {
      const id = live(`${this.model}:uid:${uid}`)?.id;
      return typeof id === 'string' ? this.find(id) : undefined;
    }
    async findByUserCode(userCode: string): Promise<Payload | undefined> {
      const id = live(`${this.model}:userCode:${userCode}`)?.id;
      return typeof id === 'string' ? this.find(id) : undefined;
    }
    async consume(id: string): Promise<void> {
      const payload = live(this.key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string): Promise<void> {
      entries.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      const keys = (live(`grant:${grantId}`)?.keys as string[] | undefined) ?? [];
      for (const key of keys) entries.delete(key);
      entries.delete(`grant:${grantId}`);
    }
  };
}
