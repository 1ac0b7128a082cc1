/**
 * Reporting v3 on the sandbox Amazon Ads (listings.md §4; DESIGN §13), asynchronous as Amazon's is, but deterministic:
 * - `POST /reporting/reports` → 200 `{reportId, status: 'PENDING', name, startDate, endDate, configuration, createdAt,
 *   updatedAt}`; the same request of the same profile while the earlier one is not finished → 425
 *   `{code: '425', detail: 'The Request is a duplicate of : <reportId>'}` (the words client code has seen from Amazon).
 * - `GET /reporting/reports/{reportId}`: the first read answers PROCESSING, the next COMPLETED with `url` (the file's
 *   presigned-like link, report-files.ts), `urlExpiresAt` and `fileSize`; the file is made then, from what the profile
 *   holds at that moment (metrics.ts). The sandbox never fails a report. Another profile's report is a 404.
 * Reporting's own refusals are `{code, detail}` (as its 425 is); the gateway's (auth, throttling, media types) are the
 * Ads API's `{code, details}` (guard.ts).
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from '../context.js';
import type { AdsAccess, AdsCaller, AdsGuard } from './guard.js';
import { dayOf, reportRows } from './metrics.js';
import { presignedLink } from './report-files.js';
import { type ReportRequest, readReportRequest, requestKey } from './report-request.js';
import { type Report, reportsOf } from './report-store.js';
import type { AdsStore } from './sp-store.js';

export const REPORT_REQUEST_MEDIA = 'application/vnd.createasyncreportrequest.v3+json';
// ASSUMPTION: the answer types Amazon's reporting model names, and (as clients send them) the request's own type and JSON.
const CREATED_MEDIA = ['application/vnd.createasyncreportresponse.v3+json', REPORT_REQUEST_MEDIA, 'application/json'];
const STATUS_MEDIA = ['application/vnd.getasyncreportresponse.v3+json', REPORT_REQUEST_MEDIA, 'application/json'];

/** The report as Amazon describes it; url and size only once it is COMPLETED. */
function describe(report: Report) {
  return {
    reportId: report.reportId,
    name: report.name,
    status: report.status,
    startDate: report.startDate,
    endDate: report.endDate,
    configuration: report.configuration,
    createdAt: report.createdAt,
    updatedAt: report.updatedAt,
    ...(report.generatedAt ? { generatedAt: report.generatedAt } : {}),
  };
}

const reportingError = (code: string, detail: string) => ({ code, detail });

export function registerReporting(app: FastifyInstance, context: SandboxContext, guard: AdsGuard, store: AdsStore, fileBase: string) {
  const { reports } = reportsOf(context);
  const create: AdsAccess = { endpoint: 'report-create', fault: 'reports', contentType: REPORT_REQUEST_MEDIA, accept: CREATED_MEDIA };
  const read: AdsAccess = { endpoint: 'report-status', fault: 'reports', contentType: null, accept: STATUS_MEDIA };
  const at = () => context.clock.now().toISOString();

  app.post('/reporting/reports', async (request, reply) => {
    const caller = await guard.admit(request, reply, create);
    if (!caller) return reply;
    const asked = readReportRequest(request.body, dayOf(store.now()));
    if (typeof asked === 'string') return reply.code(400).send(reportingError('400', asked));
    const key = requestKey(asked);
    const running = [...reports.values()].find(
      (report) => report.profileId === caller.profileId && report.key === key && report.status !== 'COMPLETED',
    );
    if (running) return reply.code(425).send(reportingError('425', `The Request is a duplicate of : ${running.reportId}`));
    const report = newReport(caller, asked, key, at());
    reports.set(report.reportId, report);
    return guard.answer(reply, 'reports', 200, describe(report));
  });

  app.get('/reporting/reports/:reportId', async (request, reply) => {
    const caller = await guard.admit(request, reply, read);
    if (!caller) return reply;
    const { reportId } = request.params as { reportId: string };
    const report = reports.get(reportId);
    if (!report || report.profileId !== caller.profileId)
      return reply.code(404).send(reportingError('404', `Report ${reportId} was not found`));
    advance(report, store, at());
    return guard.answer(reply, 'reports', 200, { ...describe(report), ...completedFields(context, report, fileBase) });
  });
}

function newReport(caller: AdsCaller, asked: ReportRequest, key: string, now: string): Report {
  return {
    ...asked,
    reportId: randomUUID(),
    profileId: caller.profileId,
    currency: caller.profile.currencyCode,
    key,
    status: 'PENDING',
    createdAt: now,
    updatedAt: now,
  };
}

/** One read further: PENDING becomes PROCESSING, PROCESSING becomes COMPLETED with its file made now. */
function advance(report: Report, store: AdsStore, now: string): void {
  if (report.status === 'COMPLETED') return;
  if (report.status === 'PENDING') {
    Object.assign(report, { status: 'PROCESSING', updatedAt: now });
    return;
  }
  const rows = reportRows(store, { ...report, columns: report.configuration.columns });
  Object.assign(report, { status: 'COMPLETED', updatedAt: now, generatedAt: now, file: gzipSync(JSON.stringify(rows)) });
}

function completedFields(context: SandboxContext, report: Report, fileBase: string) {
  if (report.status !== 'COMPLETED' || !report.file) return {};
  const link = presignedLink(context, fileBase, report.reportId);
  return { url: link.url, urlExpiresAt: link.expiresAt, fileSize: report.file.length };
}
