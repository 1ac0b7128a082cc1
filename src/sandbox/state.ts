/**
 * The simulators' state across restarts (docs/decisions.md, "The sandbox keeps its state across restarts"). Each store
 * that holds what a sandbox seller made (listings, products, orders, ads, hosted images, revoked grants) registers a
 * part: how to take its state and how to put a saved one back. With persistence on (SANDBOX_PERSIST, on by default),
 * the sandbox puts every saved part back when it is built (its first request), and saves the parts a writing request
 * (any method but GET, HEAD and OPTIONS) changed SAVE_DELAY_MS after it (a burst is one save, and one save runs at a
 * time), and once more when the server closes. What is saved is each part's state whole, as JSON text, through the
 * store the composition root gives (the database's sandbox_state table): several instances each write their own, the
 * last writer wins. Call counts, faults, rate-limit budgets, one-time code nonces and Amazon's report documents are not
 * saved: they are a test's or a moment's.
 */

/** A store's state, as it registers it. `load` is given what `save` answered at an earlier run, decoded. */
export interface StatePart {
  save(): unknown;
  load(state: unknown): void;
}

/** Where the parts' JSON texts are kept (src/db/sandbox-state.repo.ts behind src/deps.ts). */
export interface SandboxStateStore {
  read(): Promise<Map<string, string>>;
  write(part: string, state: string): Promise<void>;
}

/** The parts of one sandbox context, by name (`tiktok-shop:products`…). */
export type StateParts = Map<string, StatePart>;

/**
 * Registers a store's part as it is created. A later registration of the name replaces the earlier: the sandbox's
 * instance is built again after a build that failed (app.ts), with new stores, and their state is the one to keep.
 */
export function registerStatePart(parts: StateParts, name: string, part: StatePart): void {
  parts.set(name, part);
}

/** Empties a store's Map or Set and fills it with a saved one's entries (a missing one leaves it empty). */
export function refill<K, V>(target: Map<K, V> | Set<K>, saved: Map<K, V> | Set<K> | undefined): void {
  target.clear();
  if (!saved) return;
  if (target instanceof Map && saved instanceof Map) for (const [key, value] of saved) target.set(key, value);
  else if (target instanceof Set && saved instanceof Set) for (const key of saved) target.add(key);
}

/** How long after a request its changes are saved: a burst of requests is one save. */
export const SAVE_DELAY_MS = 1_000;

/**
 * JSON with what the stores hold besides plain data: Maps, Sets, Dates, bigints and bytes, tagged `{"$t": kind, "v":
 * value}` so they come back as they were. A plain object's own key `$t` (or `$t$`, `$t$$`…) is written with one more
 * `$` and read back without it, so no seller's data is taken for a tag. JSON.stringify and JSON.parse do the walking
 * (a replacer and a reviver): 1,000 TikTok products of 6 SKUs (2.3 MB) encode in half the time a walk of our own took
 * (154 against 330 ms on a 2-CPU machine under a load average of 20), which is what runs after writes; reading them
 * back, once a start, takes twice as long (528 against 243 ms).
 */
export function encodeState(value: unknown): string {
  return JSON.stringify(value, replacer);
}

export function decodeState(text: string): unknown {
  return JSON.parse(text, reviver);
}

const TAG_KEY = /^\$t\$*$/;

function replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  // `value` is what toJSON made of the original (a Buffer's `{type, data}`, a Date's string): the original is read.
  const original = this[key];
  if (typeof original === 'bigint') return { $t: 'bigint', v: original.toString() };
  if (original === null || typeof original !== 'object') return value;
  if (original instanceof Map) return { $t: 'map', v: [...original] };
  if (original instanceof Set) return { $t: 'set', v: [...original] };
  if (original instanceof Date) return { $t: 'date', v: original.getTime() };
  if (original instanceof Uint8Array)
    return { $t: 'bytes', v: Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString('base64') };
  // A tag made above is not looked at again (its properties are): a plain object's keys are escaped here.
  if (Array.isArray(value) || value === null || typeof value !== 'object') return value;
  for (const name in value) {
    if (name.charCodeAt(0) === 36 && TAG_KEY.test(name)) return escapeKeys(value as Record<string, unknown>);
  }
  return value;
}

function escapeKeys(object: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(object)) copy[TAG_KEY.test(name) ? `${name}$` : name] = entry;
  return copy;
}

function reviver(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const object = value as Record<string, unknown>;
  switch (object.$t) {
    case 'bigint':
      return BigInt(object.v as string);
    case 'map':
      return new Map(object.v as [unknown, unknown][]);
    case 'set':
      return new Set(object.v as unknown[]);
    case 'date':
      return new Date(object.v as number);
    case 'bytes':
      return Buffer.from(object.v as string, 'base64');
  }
  for (const name in object) {
    if (name.charCodeAt(0) === 36 && TAG_KEY.test(name)) {
      const copy: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(object)) copy[TAG_KEY.test(key) && key !== '$t' ? key.slice(0, -1) : key] = entry;
      return copy;
    }
  }
  return value;
}

/** Puts each saved part back; a part whose saved state cannot be read is left empty and reported, not fatal. */
export async function restoreParts(
  parts: StateParts,
  store: SandboxStateStore,
  onProblem: (part: string, error: unknown) => void,
): Promise<Map<string, string>> {
  const saved = await store.read();
  const loaded = new Map<string, string>();
  for (const [name, part] of parts) {
    const text = saved.get(name);
    if (text === undefined) continue;
    try {
      part.load(decodeState(text));
      loaded.set(name, text);
    } catch (error) {
      onProblem(name, error);
    }
  }
  return loaded;
}

/**
 * The saver of a context's parts: `changed()` after a request asks for a save SAVE_DELAY_MS later (one at a time, so
 * an older state never overwrites a newer one), `flush()` saves now (at close). Only parts whose text differs from the
 * last one written are written.
 */
export function createStateSaver(
  parts: StateParts,
  store: SandboxStateStore,
  written: Map<string, string>,
  onProblem: (error: unknown) => void,
) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();

  const saveNow = async () => {
    for (const [name, part] of parts) {
      const text = encodeState(part.save());
      if (written.get(name) === text) continue;
      await store.write(name, text);
      written.set(name, text);
    }
  };
  const queue = () => {
    running = running.then(saveNow).catch(onProblem);
    return running;
  };
  return {
    changed(): void {
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        void queue();
      }, SAVE_DELAY_MS);
      timer.unref();
    },
    async flush(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = null;
      await queue();
    },
  };
}
