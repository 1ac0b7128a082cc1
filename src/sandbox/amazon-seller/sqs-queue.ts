/**
 * The sandbox's one SQS queue, `storelink-amazon-orders` of account 000000000000 in us-east-1 (SANDBOX_CLIENTS.amazonSqs),
 * where the sandbox Amazon puts the app's notifications (notifications-store.ts): a standard queue with SQS's default
 * attributes (Amazon SQS Developer Guide, "Amazon SQS visibility timeout" and the CreateQueue attributes: visibility
 * timeout 30 s, retention 4 days), in memory per running sandbox and kept across restarts as a state part (state.ts).
 * A received message is in flight for its visibility timeout, then visible again with a new receipt handle unless
 * deleted: delivery is at least once. ASSUMPTION: oldest first (a standard queue promises no order).
 *
 * Times are read on the sandbox's clock, as every simulator's are: with the real clock a message comes back once its
 * timeout has passed; a test on a manual clock advances it. A long poll waits in real time (`wait`), woken by a new
 * message or when a received message's timeout ends in real time (on a manual clock it finds nothing then and waits on).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { SandboxContext } from '../context.js';
import { refill, registerStatePart } from '../state.js';

/** SQS's defaults: VisibilityTimeout 30 s, MessageRetentionPeriod 345,600 s. */
export const DEFAULT_VISIBILITY_S = 30;
const RETENTION_MS = 345_600_000;
/** ASSUMPTION: real receipt handles are opaque; the sandbox's start as many observed ones do, then carry their message. */
const HANDLE_PREFIX = 'AQEB';

export interface QueuedMessage {
  id: string;
  body: string;
  md5: string;
  sentAt: number;
  visibleAt: number;
  /** The handle of the latest receive; null until received. */
  handle: string | null;
  receives: number;
  firstReceivedAt: number | null;
}

/** What a receive hands out (the message at that moment). */
export type ReceivedMessage = Readonly<QueuedMessage> & { handle: string };

/** What a DeleteMessage does with a handle: SQS succeeds for an old handle of a message, "but the message might not be deleted". */
export type Deletion = 'deleted' | 'not-deleted' | 'invalid';

export type SqsQueue = ReturnType<typeof createSqsQueue>;

const handleFor = (messageId: string) =>
  `${HANDLE_PREFIX}${Buffer.from(JSON.stringify({ m: messageId, r: randomBytes(24).toString('base64url') })).toString('base64url')}`;

/** The message id a handle the sandbox issued names; null for any other text. */
function messageIdOf(handle: string): string | null {
  if (!handle.startsWith(HANDLE_PREFIX)) return null;
  try {
    const claims = JSON.parse(Buffer.from(handle.slice(HANDLE_PREFIX.length), 'base64url').toString('utf8')) as {
      m?: unknown;
      r?: unknown;
    };
    return typeof claims.m === 'string' && typeof claims.r === 'string' ? claims.m : null;
  } catch {
    return null;
  }
}

function createSqsQueue(context: SandboxContext) {
  const messages = new Map<string, QueuedMessage>();
  const waiters = new Set<() => void>();
  const now = () => context.clock.nowMs();
  registerStatePart(context.stateParts, 'amazon-seller:sqs-queue', {
    save: () => messages,
    load: (state) => refill(messages, state as Map<string, QueuedMessage>),
  });

  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  /** Drops what the retention period has expired. */
  const expire = (at: number) => {
    for (const [id, message] of messages) if (message.sentAt <= at - RETENTION_MS) messages.delete(id);
  };

  return {
    /** Amazon sends a notification: the message is visible at once, and a waiting long poll is woken. */
    send(body: string): string {
      const at = now();
      const id = randomUUID();
      const md5 = createHash('md5').update(body, 'utf8').digest('hex');
      messages.set(id, { id, body, md5, sentAt: at, visibleAt: at, handle: null, receives: 0, firstReceivedAt: null });
      wake();
      return id;
    },

    /** Up to `max` visible messages, oldest first, each in flight for `visibilityS` with a new handle. */
    receive(max: number, visibilityS: number): ReceivedMessage[] {
      const at = now();
      expire(at);
      const visible = [...messages.values()].filter((message) => message.visibleAt <= at).sort((a, b) => a.sentAt - b.sentAt);
      const taken = visible.slice(0, max).map((message) => {
        message.visibleAt = at + visibilityS * 1000;
        message.handle = handleFor(message.id);
        message.receives += 1;
        message.firstReceivedAt ??= at;
        return { ...message, handle: message.handle };
      });
      // A message back in view wakes the long polls then (in real time; see the module's note).
      if (taken.length > 0) setTimeout(wake, visibilityS * 1000).unref();
      return taken;
    },

    /** Deletes the message of the latest handle; an earlier handle of a message, or one of a deleted message, deletes nothing. */
    remove(handle: string): Deletion {
      const id = messageIdOf(handle);
      if (id === null) return 'invalid';
      const message = messages.get(id);
      if (!message || message.handle !== handle) return 'not-deleted';
      messages.delete(id);
      return 'deleted';
    },

    /** Resolves when a message may have become visible, after `ms`, or when `signal` aborts, whichever is first. */
    wait(ms: number, signal: AbortSignal): Promise<void> {
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        timer.unref();
        waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
        if (signal.aborted) done();
      });
    },

    /** Messages visible now and in flight (SQS's ApproximateNumberOfMessages and ApproximateNumberOfMessagesNotVisible). */
    counts(): { visible: number; inFlight: number } {
      const at = now();
      expire(at);
      const all = [...messages.values()];
      const visible = all.filter((message) => message.visibleAt <= at).length;
      return { visible, inFlight: all.length - visible };
    },
  };
}

const queues = new WeakMap<SandboxContext, SqsQueue>();

/** The queue of a running sandbox, shared by the SQS endpoint and the notifications that fill it. */
export function sandboxSqsQueueOf(context: SandboxContext): SqsQueue {
  let queue = queues.get(context);
  if (!queue) queues.set(context, (queue = createSqsQueue(context)));
  return queue;
}
