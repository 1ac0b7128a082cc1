/**
 * Advertised listings' figures (DESIGN §13), from Amazon Ads' asynchronous advertised-product report: once a day a sweep
 * queues one `advertising-report` job per profile that has advertising, and a campaign that starts running gets one at
 * once. A report job asks for the report, looks again until Amazon has made it (the job sent again a little later each
 * time, so no worker waits), downloads the gzipped file and stores each listing's figures per day. Sellers' orders and
 * sales keep being attributed for seven days, so every report covers the last fortnight again.
 */
import * as advertisingRepo from '../../db/advertising.repo.js';
import type { Db } from '../../db/client.js';
import type { SiteRow } from '../../db/sites.repo.js';
import { DEFAULT_AMAZON_REGION } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import { type Jobs, type QueueDefinition, RESUMABLE } from '../../lib/jobs.js';
import type { AdReportRow, AdvertisingAdapter } from '../../platforms/contracts/advertising.js';
import type { PlatformJobData, PlatformJobRunner } from '../platform-work/runner.js';

export const METRICS_SWEEP_QUEUE = 'advertising-metrics';
export const REPORT_QUEUE = 'advertising-report';

/** Days each report covers again (attribution settles within seven; a fortnight also mends a missed day or two). */
const REPORT_DAYS = 14;
/** The widest report Amazon makes (spAdvertisedProduct: 31 days), and how far back a campaign's first report goes. */
const FIRST_REPORT_DAYS = 31;
/** How long after asking (or last looking) the report is looked at again, and how many looks before it is given up. */
export const REPORT_POLL_MS = 20_000;
const POLLS_MAX = 90;
const DAY_MS = 86_400_000;

export interface ReportJob extends PlatformJobData {
  workspaceId: number;
  siteId: number;
  profileId: string;
  from: string;
  to: string;
  reportId?: string;
  polls?: number;
}

const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/** Amazon's numbers as decimal strings to the cent (JPY's whole yen keep `.00`). */
const money = (value: number) => (Math.round(value * 100) / 100).toFixed(2);

/** A report's rows summed per advertising and day (a listing with several SKUs has an ad per SKU). */
export function daysOfReport(
  rows: readonly AdReportRow[],
  advertisingOfAd: ReadonlyMap<string, number>,
): advertisingRepo.AdvertisingDayRow[] {
  const days = new Map<
    string,
    { advertisingId: number; date: string; impressions: number; clicks: number; cost: number; orders: number; sales: number }
  >();
  for (const row of rows) {
    const advertisingId = advertisingOfAd.get(row.adId);
    if (advertisingId === undefined) continue;
    const key = `${advertisingId}:${row.date}`;
    const day = days.get(key) ?? { advertisingId, date: row.date, impressions: 0, clicks: 0, cost: 0, orders: 0, sales: 0 };
    day.impressions += row.impressions;
    day.clicks += row.clicks;
    day.cost += row.cost;
    day.orders += row.orders;
    day.sales += row.sales;
    days.set(key, day);
  }
  return [...days.values()].map((day) => ({
    advertisingId: day.advertisingId,
    date: day.date,
    impressions: Math.round(day.impressions),
    clicks: Math.round(day.clicks),
    spend: money(day.cost),
    orders: Math.round(day.orders),
    sales: money(day.sales),
  }));
}

export function createAdvertisingMetrics(deps: {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  adapter: AdvertisingAdapter | null;
  runner: PlatformJobRunner;
  timeoutMs: number;
}) {
  const { db, clock, jobs, runner } = deps;

  const sendReport = (tx: Db, job: ReportJob, at?: Date) =>
    jobs.send(REPORT_QUEUE, job, { tx, singletonKey: `${job.siteId}:${job.profileId}`, ...(at ? { startAfter: at } : {}) });

  /** Every profile with advertising gets its report of the last fortnight. */
  async function sweep(): Promise<string> {
    const now = clock.now();
    const profiles = await advertisingRepo.reportedProfiles(db, new Date(now.getTime() - REPORT_DAYS * DAY_MS));
    const from = dayOf(new Date(now.getTime() - (REPORT_DAYS - 1) * DAY_MS));
    for (const profile of profiles) await sendReport(db, { ...profile, from, to: dayOf(now) });
    return `${profiles.length} profiles`;
  }

  /** Asks for the report, looks at it again until Amazon has made it, then stores its figures. */
  async function follow(job: ReportJob, site: SiteRow, accessToken: string): Promise<string> {
    const adapter = deps.adapter!;
    const now = clock.now();
    const call = {
      accessToken,
      profileId: job.profileId,
      region: site.advertisingRegion ?? DEFAULT_AMAZON_REGION,
      signal: jobs.stopDeadline,
    };
    if (!job.reportId) {
      const reportId = await adapter.requestReport(call, { from: job.from, to: job.to });
      await sendReport(db, { ...job, reportId, polls: 0, attempt: 0 }, new Date(now.getTime() + REPORT_POLL_MS));
      return `requested ${reportId}`;
    }
    const status = await adapter.reportStatus(call, job.reportId);
    if (status.status === 'failed') return `failed: ${status.reason}`;
    if (status.status === 'pending') {
      const polls = (job.polls ?? 0) + 1;
      if (polls >= POLLS_MAX) return `given up: the report was not ready after ${polls} looks`;
      await sendReport(db, { ...job, polls }, new Date(now.getTime() + REPORT_POLL_MS));
      return 'not ready';
    }
    const rows = await adapter.downloadReport(status.url, jobs.stopDeadline);
    const advertising = await advertisingRepo.advertisingOfProfile(db, site.id, job.profileId);
    const advertisingOfAd = new Map(advertising.flatMap((ad) => Object.values(ad.adIds).map((adId) => [adId, ad.id] as const)));
    const days = daysOfReport(rows, advertisingOfAd);
    await db.transaction(async (tx) => {
      await advertisingRepo.saveDays(tx, days);
      await advertisingRepo.markMetricsRead(
        tx,
        advertising.map((ad) => ad.id),
        now,
      );
    });
    return `${days.length} days stored`;
  }

  const report = runner.handlerOf<ReportJob, ReportJob>({
    grant: 'advertising',
    ready: (site) => deps.adapter !== null && site.advertisingProfiles !== null,
    load: async (job) => ({ subject: job, workspaceId: job.workspaceId, siteId: job.siteId }),
    call: follow,
    retry: (job, at, attempt) => sendReport(db, { ...job, attempt }, at),
    givenUp: async (_job, message) => `given up: ${message}`,
  });

  const sweepQueue: QueueDefinition<object> = {
    name: METRICS_SWEEP_QUEUE,
    options: { policy: 'singleton', expireInSeconds: 300, retryLimit: 2, deleteAfterSeconds: 7 * 24 * 3600 },
    work: { pollingIntervalSeconds: 30 },
    handler: sweep,
    worker: 'listings',
    // Amazon makes the previous day's figures available in the morning (UTC in North America's night).
    schedule: '17 7 * * *',
  };
  const reportQueue: QueueDefinition<ReportJob> = {
    name: REPORT_QUEUE,
    // One running and one waiting report per profile (the waiting one is the same report looked at again).
    options: {
      policy: 'stately',
      expireInSeconds: 3 * Math.max(10, Math.ceil(deps.timeoutMs / 1000)),
      retryLimit: 3,
      ...RESUMABLE,
      deleteAfterSeconds: 7 * 24 * 3600,
    },
    // Its jobs come due 20 s apart at the soonest: a worker looking every second would only add idle queries.
    work: { localConcurrency: 2, pollingIntervalSeconds: REPORT_POLL_MS / 2_000 },
    handler: report,
    worker: 'listings',
  };

  return {
    queues: [sweepQueue, reportQueue as unknown as QueueDefinition<object>],
    /** A campaign that starts running: its profile's report of the last month now (the first figures of the campaign). */
    async firstReport(tx: Db, advertising: { workspaceId: number; siteId: number; profileId: string }) {
      const now = clock.now();
      const from = dayOf(new Date(now.getTime() - (FIRST_REPORT_DAYS - 1) * DAY_MS));
      const { workspaceId, siteId, profileId } = advertising;
      await sendReport(tx, { workspaceId, siteId, profileId, from, to: dayOf(now) });
    },
    sweep,
  };
}

export type AdvertisingMetrics = ReturnType<typeof createAdvertisingMetrics>;
