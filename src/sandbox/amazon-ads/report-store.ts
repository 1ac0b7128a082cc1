/** The reports of a running sandbox's Amazon Ads, shared by its three regions, and the key their file links are signed with. */
import { randomBytes } from 'node:crypto';
import type { SandboxContext } from '../context.js';
import type { ReportRequest } from './report-request.js';

export type ReportStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED';

export interface Report extends ReportRequest {
  reportId: string;
  profileId: string;
  currency: string;
  /** The request as text (report-request.ts's requestKey): the same one while this is not finished is a duplicate. */
  key: string;
  status: ReportStatus;
  createdAt: string;
  updatedAt: string;
  generatedAt?: string;
  /** The gzipped JSON rows, made when the report completed. */
  file?: Buffer;
}

export interface ReportsState {
  reports: Map<string, Report>;
  /** Signs the file links (report-files.ts); a link of another running sandbox does not open here. */
  signingKey: Buffer;
}

const states = new WeakMap<SandboxContext, ReportsState>();

export function reportsOf(context: SandboxContext): ReportsState {
  let state = states.get(context);
  if (!state) states.set(context, (state = { reports: new Map(), signingKey: randomBytes(32) }));
  return state;
}
