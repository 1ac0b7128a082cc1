/**
 * Background work on pg-boss (DESIGN §11): durable queues in the service's own database, PGlite or PostgreSQL. A job
 * sent inside a transaction commits with it (a transactional outbox); a job whose instance dies runs again within
 * seconds on another one or the restarted one (`RESUMABLE`); any number of instances share the queues.
 */
import { createRequire } from 'node:module';
import { type SQL, sql } from 'drizzle-orm';
import { type ConstructorOptions, fromDrizzle, type Job, PgBoss, type Queue, type WorkOptions } from 'pg-boss';

/** A Drizzle database or transaction: a job sent through it commits or rolls back with the caller's writes. */
export interface Transaction {
  execute(query: SQL): PromiseLike<unknown>;
}

/**
 * One queue, as its job module declares it: its pg-boss options, how its workers fetch, what a job does (the handler's
 * result is the job's output), the instance switch that turns its workers on, and its schedule if it recurs.
 */
export interface QueueDefinition<T extends object> {
  readonly name: string;
  readonly options: Omit<Queue, 'name'>;
  readonly work: WorkOptions;
  readonly handler: (data: T, job: Job<T>) => Promise<string>;
  /**
   * Jobs a worker takes at once, and what they do together (their shared output): a burst of jobs that are cheaper
   * together (orders a platform reads many at a call) drains in fewer handler runs. Without it, one job at a time.
   */
  readonly batch?: { readonly size: number; readonly handler: (data: T[]) => Promise<string> };
  /** The instance's switch for this queue's workers (the composition root maps it to REFRESH_WORKER and its kin). */
  readonly worker: string;
  /** A cron expression: every instance's engine sends the queue a job at each occurrence (one instance sends each). */
  readonly schedule?: string;
}

export interface SendOptions {
  /** Commit the job with this transaction's writes. */
  tx?: Transaction;
  startAfter?: Date;
  singletonKey?: string;
  /** Jobs of one group share the queue's `groupConcurrency` (for example one webhook endpoint). */
  group?: string;
}

export interface Jobs {
  /** Declares a queue; every queue is declared before start(). */
  define<T extends object>(queue: QueueDefinition<T>): void;
  /** Starts this instance's workers for every declared queue whose switch is on, and the schedules of those queues. */
  startWorkers(isOn: (worker: string) => boolean): Promise<void>;
  /** Installs or migrates pg-boss's schema (under an advisory lock, so instances may start together) and creates the queues. */
  start(): Promise<void>;
  send<T extends object>(name: string, data: T, options?: SendOptions): Promise<string | null>;
  /** Sends many jobs of one queue in one statement (pg-boss's insert), in the caller's transaction if given. */
  sendMany<T extends object>(
    name: string,
    jobs: readonly ({ data: T } & Omit<SendOptions, 'tx'>)[],
    options?: { tx?: Transaction },
  ): Promise<void>;
  /** Runs every pg-boss instance's recurring job `name` at a cron expression (one instance sends each occurrence). */
  schedule(name: string, cron: string): Promise<void>;
  /** Starts this instance's workers for the named queues. */
  work(names: readonly string[]): Promise<void>;
  /**
   * Runs, in this process and one after another, up to `limit` jobs of the queue that are ready now, through the same
   * handler the workers use; returns their results. For the operator and for tests that drive time by hand.
   */
  runReady(name: string, limit?: number): Promise<string[]>;
  /**
   * Aborted when stop() begins. A handler then starts no outbound call, and abandons one in flight that is safe to make
   * again later (a webhook POST: receivers deduplicate by webhook-id), leaving its job to be retried.
   */
  readonly stopping: AbortSignal;
  /**
   * Aborted a second before stop()'s wait for jobs in flight runs out: a call that may not be safe to repeat (a token
   * renewal, whose answer may carry the only copy of a rotated refresh token) gets as long as the shutdown allows, then
   * ends in time for its job to record a retry.
   */
  readonly stopDeadline: AbortSignal;
  /**
   * Stops fetching jobs, aborts `stopping` at once and `stopDeadline` a second before `timeoutMs`, and waits up to
   * `timeoutMs` for jobs in flight (pg-boss fails those still running, to be retried). Later calls share the first one.
   */
  stop(timeoutMs: number): Promise<void>;
}

export interface JobsOptions {
  /** How pg-boss reaches the database: PGlite's adapter, or its own pool on PostgreSQL. */
  connection: Pick<ConstructorOptions, 'db' | 'connectionString' | 'max' | 'backend'>;
  /**
   * This process is the only one that works the database's queues (PGlite: its data directory is locked to one process),
   * so every job active when the engine starts was left by a process that died, and is run again at once. Otherwise
   * (PostgreSQL, any number of instances) a dead instance's jobs are told by their heartbeats (`RESUMABLE`).
   */
  soleProcess: boolean;
  onError: (error: unknown) => void;
}

/**
 * The pg-boss options of a queue whose jobs must run again within seconds when the instance holding them dies (issue
 * 38), not at their expiry (three platform deadlines: 90 s): platform work of every kind and webhook deliveries.
 * - On PostgreSQL (any number of instances) a worker refreshes each job it holds every `HEARTBEAT_REFRESH_SECONDS`, and
 *   a job not refreshed for `heartbeatSeconds` (pg-boss's least) is its instance's loss: pg-boss's monitor fails it
 *   into its retry. Every instance looks every `RESUME_LOOK_SECONDS` for such jobs (`lookForOrphans`), so the monitor
 *   runs as soon as they lapse rather than at its next pass, and the workers are woken when their retries come due.
 * - On PGlite (one process) the restarted process runs them again as it starts (`soleProcess`).
 * - pg-boss's retry of such a job (or of one whose database failed under it) comes 1 to 2 s later, backing off to 2 to
 *   4 s, 4 to 8 s while it fails again. A platform's own answers are each job's runner's to retry, never pg-boss's.
 * `expireInSeconds` still bounds a run whose instance lives on but whose handler hangs.
 */
export const RESUMABLE = { heartbeatSeconds: 10, retryDelay: 1, retryBackoff: true } as const;

/** How often a worker refreshes the heartbeat of each job it holds: four refreshes may be lost before it is taken as dead. */
const HEARTBEAT_REFRESH_SECONDS = 2;
/**
 * How often an instance on PostgreSQL looks for resumable jobs whose heartbeat lapsed or whose retry is due, and how
 * long pg-boss's monitor holds its claim on a queue (a pass another instance ran this recently is not run again).
 */
const RESUME_LOOK_SECONDS = 1;

/**
 * How long a job may run before it is taken as lost (its instance died) and run again: three deadlines of the outbound
 * call it makes, and never under pg-boss's minimum of 10 s. Longer than any honest run, so a live job is never doubled.
 */
export function expiryAfterDeadlines(timeoutMs: number): number {
  return Math.max(10, Math.ceil((3 * timeoutMs) / 1000));
}

/**
 * How often an idle worker looks for work while LISTEN/NOTIFY is up. A job ready at once wakes its queue's workers on
 * every instance when its transaction commits; a job due later wakes this instance's workers when it comes due (when
 * this instance sent it or failed it); this look finds the rest: a job due later that another instance sent, one whose
 * instance died, or a notification lost while the listener reconnected. Without LISTEN/NOTIFY a queue's own polling
 * interval applies. Idle, an instance on PostgreSQL now runs about 5 transactions a second (its 39 workers every 10 s,
 * and pg-boss's upkeep) rather than 33.
 */
const BACKSTOP_POLL_SECONDS = 10;

/**
 * The sole process's backstop look and pg-boss's upkeep pass (PGlite), pg-boss's own default. The one process sends
 * every job itself, over a listener in the same process that cannot lose a notification, and resumes a dead
 * process's jobs as it starts; and pg-boss's worker fails a handler that outruns its expiry itself. So the look finds
 * almost nothing and the pass's expiry is a second guard: at 10 s, with the database in the process, the two cost an
 * idle server 150 to 200 ms of CPU every 10 s (BENCHMARKS.md, "An embedded server's upkeep").
 */
const SOLE_PROCESS_LOOK_SECONDS = 60;

/** The longest delay setTimeout takes (2^31 - 1 ms); a longer one would fire at once. */
const MAX_TIMER_MS = 2_147_483_647 - 1_000;

/** What a job's handler gets between `stopDeadline` and the end of stop()'s wait: time to record a retry. */
const RECORD_MS = 1_000;

/** The reason `stopping` and `stopDeadline` are aborted with: an AbortError, as fetch reports any abort. */
const shuttingDown = () => new DOMException('The service is shutting down', 'AbortError');

/**
 * pg-boss's scheduler evaluates cron expressions with cron-parser, which does its date arithmetic with luxon. luxon asks
 * ICU for the system's locale and time zone the first time it needs them (`new Intl.DateTimeFormat()`), which pages
 * about 6 MB of ICU's data out of the node binary into the process for good. cron needs neither: a locale shapes how a
 * date is written, not which minute comes next, and pg-boss always passes the schedule's zone (UTC here), converting
 * from the default zone at the same instant. Giving luxon both spares the lookups. The luxon set is the one cron-parser
 * loads: resolved from cron-parser's place, itself resolved from pg-boss's, so a nested copy of either is not missed.
 */
function spareCronIcuLookups(): void {
  const fromPgBoss = createRequire(import.meta.resolve('pg-boss'));
  const fromCronParser = createRequire(fromPgBoss.resolve('cron-parser'));
  const { Settings } = fromCronParser('luxon') as { Settings: { defaultLocale: string; defaultZone: string } };
  Settings.defaultLocale = 'en-US';
  Settings.defaultZone = 'utc';
}

export function createJobs(options: JobsOptions): Jobs {
  spareCronIcuLookups();
  const queues = new Map<string, QueueDefinition<object>>();
  const boss = new PgBoss({
    ...options.connection,
    // On PostgreSQL, expired jobs (an instance's that froze) are found within ten seconds rather than pg-boss's default
    // minute, and a queue's monitor pass claims it for RESUME_LOOK_SECONDS only, so the look that finds a lapsed
    // heartbeat can run it. The sole process keeps pg-boss's minute (SOLE_PROCESS_LOOK_SECONDS).
    superviseIntervalSeconds: options.soleProcess ? SOLE_PROCESS_LOOK_SECONDS : 10,
    monitorIntervalSeconds: options.soleProcess ? SOLE_PROCESS_LOOK_SECONDS : RESUME_LOOK_SECONDS,
    // A one-minute timekeeper is enough for the recurring safety nets; the schedules are few.
    cronWorkerIntervalSeconds: 30,
    openTelemetry: { enabled: false },
    // Workers wake when a job is sent rather than asking every second (BACKSTOP_POLL_SECONDS); on PostgreSQL this holds
    // one more connection, for LISTEN.
    useListenNotify: true,
    // Housekeeping this service does not use: the instance registry, persisted warnings, and index rebuilds.
    registerInstance: false,
    persistWarnings: false,
    reindex: false,
  });
  boss.on('error', options.onError);
  let started = false;
  const stopping = new AbortController();
  const stopDeadline = new AbortController();
  let stopped: Promise<void> | null = null;

  /**
   * Tells the queue's workers that hold a job to fetch again as soon as it is done, rather than after their polling
   * interval (pg-boss's own burst mode follows a count of ready jobs it caches for a minute): a backlog drains at the
   * pace of the handlers, while an idle worker still costs one fetch an interval.
   */
  const keepFetching = (name: string) => {
    for (const worker of boss.getWipData()) if (worker.name === name && worker.count > 0) boss.notifyWorker(worker.id);
  };

  /** Wakes this instance's workers of the queue: they look for a job now instead of at their next poll. */
  const wake = (name: string) => {
    for (const worker of boss.getWipData()) if (worker.name === name) boss.notifyWorker(worker.id);
  };
  /** Wakes the queue's workers when a job comes due later (a NOTIFY is sent only for a job ready at once). */
  const wakeAt = (name: string, at: Date) => {
    const delay = at.getTime() - Date.now();
    // Further off than a timer reaches (24.8 days), the 10 s look finds it.
    if (!started || stopping.signal.aborted || delay > MAX_TIMER_MS) return;
    // A little after the time, so the job is due by the database's clock too.
    setTimeout(() => wake(name), Math.max(0, delay) + 100).unref();
  };

  /**
   * Jobs sent outside a transaction while an insert of their queue is on its way wait for it, and go together in the
   * next: one statement and one commit for all of them. A burst of platform notifications (hundreds a second, each
   * queuing an order's read) then costs the database a few commits instead of one each, and leaves pg-boss's two
   * connections free for the workers' fetches (BENCHMARKS.md, the burst). Nothing waits when nothing is on its way;
   * each sender's promise settles with the insert that took its jobs, an error included.
   */
  const gathering = new Map<string, { rows: JobRow[]; inserted: Promise<void> }>();
  /** Each queue's latest insert, which the next one waits for. */
  const latest = new Map<string, Promise<void>>();
  const insertGathered = (name: string, rows: readonly JobRow[]): Promise<void> => {
    let next = gathering.get(name);
    if (!next) {
      const batch: JobRow[] = [];
      const before = latest.get(name);
      const inserted = (async () => {
        await before?.catch(() => undefined);
        // From here on, what is sent waits for this insert.
        gathering.delete(name);
        await boss.insert(name, batch);
      })();
      latest.set(name, inserted);
      next = { rows: batch, inserted };
      gathering.set(name, next);
    }
    next.rows.push(...rows);
    return next.inserted;
  };

  /** Runs the queue's handler on jobs a worker took: all of them together for a batch queue, else the one. */
  const handle = (queue: QueueDefinition<object>, taken: readonly Job<object>[]) =>
    queue.batch ? queue.batch.handler(taken.map((job) => job.data)) : queue.handler(taken[0]!.data, taken[0]!);

  const definition = (name: string) => {
    const queue = queues.get(name);
    if (!queue) throw new Error(`no such queue: ${name}`);
    return queue;
  };

  /** Whether a queue's jobs carry heartbeats: a resumable queue's, where several instances may share the database. */
  const beats = (queue: QueueDefinition<object>) => !options.soleProcess && queue.options.heartbeatSeconds !== undefined;
  /** How often an idle worker of this process looks for work on its own (BACKSTOP_POLL_SECONDS). */
  const backstop = options.soleProcess ? SOLE_PROCESS_LOOK_SECONDS : BACKSTOP_POLL_SECONDS;

  /**
   * The sole process's start: every job of its queues still active was held by a process that died (the data directory
   * admits one process at a time), so each is failed into pg-boss's retry now (or failed for good, its retries spent),
   * fenced to the attempt that was running, and this instance's workers are woken when the retries come due.
   */
  const resumeOrphans = async () => {
    const { rows } = await boss
      .getDb()
      .executeSql('SELECT name, id, retry_count AS "retryCount" FROM pgboss.job WHERE state = $1 AND name = ANY($2::text[])', [
        'active',
        [...queues.keys()],
      ]);
    const orphans = new Map<string, { id: string; retryCount: number }[]>();
    for (const { name, id, retryCount } of rows as { name: string; id: string; retryCount: number }[])
      orphans.set(name, [...(orphans.get(name) ?? []), { id, retryCount }]);
    for (const [name, held] of orphans) {
      await boss.fail(name, held, { message: 'its process died' });
      const { retryDelay = 0 } = definition(name).options;
      // pg-boss's back-off: at most retryDelay × 2^(retries + 1) seconds; one wake for the jobs of each retry count.
      for (const retryCount of new Set(held.map((job) => job.retryCount)))
        wakeAt(name, new Date(Date.now() + retryDelay * 2 ** Math.min(16, retryCount + 1) * 1000));
    }
  };

  /**
   * On PostgreSQL, every `RESUME_LOOK_SECONDS`: one indexed query for this instance's resumable queues that hold a job
   * whose heartbeat lapsed (its instance died: pg-boss's monitor is run for them now, and their workers woken when the
   * retry it makes comes due) or a retry that is due (failed by another instance's monitor, which wakes no one here).
   */
  let look: NodeJS.Timeout | undefined;
  let looking = false;
  const lookForOrphans = async (names: readonly string[]) => {
    if (looking) return;
    looking = true;
    try {
      await lookOnce(names);
    } finally {
      looking = false;
    }
  };
  const lookOnce = async (names: readonly string[]) => {
    const { rows } = await boss.getDb().executeSql(
      `SELECT name, bool_or(state = 'active') AS lapsed FROM pgboss.job
        WHERE name = ANY($1::text[]) AND (
          (state = 'active' AND heartbeat_on + heartbeat_seconds * interval '1 second' < now())
          OR (state = 'retry' AND start_after <= now()))
        GROUP BY name`,
      [names],
    );
    const found = rows as { name: string; lapsed: boolean }[];
    const lapsed = found.filter((row) => row.lapsed).map((row) => row.name);
    for (const name of lapsed) if (!stopping.signal.aborted) await boss.supervise(name);
    for (const { name } of found) wake(name);
    // pg-boss's first retry of a lapsed job comes 1 to 2 s after the monitor fails it.
    for (const name of lapsed) {
      const { retryDelay = 0 } = definition(name).options;
      for (const after of [retryDelay, 2 * retryDelay]) wakeAt(name, new Date(Date.now() + after * 1_000));
    }
  };

  return {
    define(queue) {
      queues.set(queue.name, queue as unknown as QueueDefinition<object>);
    },
    async start() {
      await boss.start();
      started = true;
      const existing = new Map((await boss.getQueues()).map((q) => [q.name, q]));
      for (const queue of queues.values()) {
        const { heartbeatSeconds: _heartbeat, ...rest } = queue.options;
        const options = { ...rest, notify: true, ...(beats(queue) ? { heartbeatSeconds: queue.options.heartbeatSeconds } : {}) };
        const stored = existing.get(queue.name);
        const update = { ...withoutCreateOnly(options), heartbeatSeconds: options.heartbeatSeconds ?? null };
        // A statement a queue on every start costs a PGlite start a quarter of a second: only a changed queue is updated.
        if (stored) {
          if (!holds(stored, update)) await boss.updateQueue(queue.name, update);
        } else await boss.createQueue(queue.name, options).catch(ignoreRace(queue.name, boss));
      }
      if (options.soleProcess) await resumeOrphans();
    },
    async send(name, data, sendOptions = {}) {
      definition(name);
      const id = await boss.send(name, data, { ...inTransaction(sendOptions.tx), ...jobOptions(sendOptions) });
      if (id && sendOptions.startAfter) wakeAt(name, sendOptions.startAfter);
      return id;
    },
    async sendMany(name, many, sendOptions = {}) {
      definition(name);
      if (many.length === 0) return;
      const rows = many.map((job) => ({ data: job.data, ...jobOptions(job) }));
      await (sendOptions.tx ? boss.insert(name, rows, inTransaction(sendOptions.tx)) : insertGathered(name, rows));
      for (const job of many) if (job.startAfter) wakeAt(name, job.startAfter);
    },
    schedule: (name, cron) => boss.schedule(name, cron),
    async startWorkers(isOn) {
      const on = [...queues.values()].filter((queue) => isOn(queue.worker));
      await this.work(on.map((queue) => queue.name));
      // Each schedule() writes its row again (a tenth of a second at a PGlite start for a handful): only a new or
      // changed one is written.
      const scheduled = new Map((await boss.getSchedules()).filter((s) => !s.key && s.data == null).map((s) => [s.name, s.cron]));
      for (const queue of on) {
        if (queue.schedule && scheduled.get(queue.name) !== queue.schedule) await boss.schedule(queue.name, queue.schedule);
      }
      const resumable = on.filter(beats).map((queue) => queue.name);
      if (resumable.length > 0 && look === undefined) {
        // A failed look (the database away) is the next one's to make: the outage is reported where it is met.
        look = setInterval(() => void lookForOrphans(resumable).catch(() => {}), RESUME_LOOK_SECONDS * 1_000).unref();
      }
    },
    async work(names) {
      for (const name of names) {
        const queue = definition(name);
        const work = {
          notifyPollingIntervalSeconds: Math.max(backstop, queue.work.pollingIntervalSeconds ?? 2),
          ...(beats(queue) ? { heartbeatRefreshSeconds: HEARTBEAT_REFRESH_SECONDS } : {}),
          ...queue.work,
        };
        await boss.work<object>(name, queue.batch ? { ...work, batchSize: queue.batch.size } : work, async (taken) => {
          keepFetching(name);
          try {
            return await handle(queue, taken);
          } catch (error) {
            // pg-boss runs a failed job again after the queue's retry delay, when it has retries left.
            wakeAt(name, new Date(Date.now() + (queue.options.retryDelay ?? 0) * 1000));
            throw error;
          }
        });
      }
    },
    async runReady(name, limit = 100) {
      const queue = definition(name);
      // A stopping engine starts nothing more, here as in its workers; what is ready is left to the next instance.
      if (stopping.signal.aborted) return [];
      const results: string[] = [];
      const jobs = await boss.fetch<object>(name, { batchSize: limit, includeMetadata: true });
      // One after another in the order they were sent, as a single worker would meet them; a batch queue's all at once.
      jobs.sort((a, b) => a.createdOn.getTime() - b.createdOn.getTime());
      const units = queue.batch ? (jobs.length > 0 ? [jobs] : []) : jobs.map((job) => [job]);
      for (const unit of units) {
        const ids = unit.map((job) => job.id);
        try {
          const result = await handle(queue, unit);
          await boss.complete(name, ids, { result });
          results.push(result);
        } catch (error) {
          await boss.fail(name, ids, { message: error instanceof Error ? error.message : String(error) });
          throw error;
        }
      }
      return results;
    },
    stopping: stopping.signal,
    stopDeadline: stopDeadline.signal,
    stop(timeoutMs) {
      stopped ??= (async () => {
        stopping.abort(shuttingDown());
        clearInterval(look);
        // Left to run after pg-boss has stopped: platform calls made by requests still draining get the same deadline.
        setTimeout(() => stopDeadline.abort(shuttingDown()), Math.max(0, timeoutMs - RECORD_MS)).unref();
        if (!started) return;
        started = false;
        await boss.stop({ graceful: true, timeout: timeoutMs, close: true });
      })();
      return stopped;
    },
  };
}

/** One job of an insert, as pg-boss takes it. */
type JobRow = { data: object } & ReturnType<typeof jobOptions>;

/** A send's options as pg-boss takes them for one job (send's and insert's alike). */
function jobOptions(options: Omit<SendOptions, 'tx'>) {
  return {
    ...(options.startAfter ? { startAfter: options.startAfter } : {}),
    ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
    ...(options.group ? { group: { id: options.group } } : {}),
  };
}

/** The connection pg-boss writes through: the caller's transaction when given, so the job commits with its writes. */
function inTransaction(tx: Transaction | undefined) {
  return tx ? { db: fromDrizzle(tx as Parameters<typeof fromDrizzle>[0], sql) } : {};
}

/** Whether a stored queue has every option of `update` already (an option it has no value for is null). */
function holds(stored: object, update: object): boolean {
  return Object.entries(update).every(([key, value]) => ((stored as Record<string, unknown>)[key] ?? null) === (value ?? null));
}

/** Options pg-boss accepts only when a queue is created. */
function withoutCreateOnly(options: Omit<Queue, 'name'>) {
  const {
    policy: _policy,
    partition: _partition,
    deadLetter: _deadLetter,
    heartbeatSeconds: _heartbeat,
    retryDelayMax: _max,
    ...rest
  } = options;
  return rest;
}

/** Two instances starting together may both try to create a queue; the loser finds it made. */
function ignoreRace(name: string, boss: PgBoss) {
  return async (error: unknown) => {
    if (!(await boss.getQueue(name))) throw error;
  };
}
