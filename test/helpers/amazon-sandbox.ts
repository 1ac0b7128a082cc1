/**
 * What the tests that drive the sandbox Amazon as a client would share: a seller's grant through Seller Central's
 * consent page and LWA's code grant, and a request to the sandbox's SQS signed by the `aws4` library (as a client
 * signs it; never the simulator's own SigV4 code).
 */
import assert from 'node:assert/strict';
import aws4 from 'aws4';
import { SANDBOX_CLIENTS } from '../../src/sandbox/context.js';
import { injectForm, type TestApp } from './test-app.js';

/**
 * A sandbox seller's access token and selling partner id, from its consent (`choices`: the consent page's options) on
 * the Seller Central of `region` (NA by default); LWA's one token URL serves every region.
 */
export async function amazonSellerGrant(
  t: TestApp,
  account: number,
  choices: Record<string, string> = {},
  region: 'NA' | 'EU' | 'FE' = 'NA',
): Promise<{ account: number; token: string; sellerId: string }> {
  const seller = SANDBOX_CLIENTS.amazonSeller;
  const redirectUri = t.deps.sandbox.callbackUrl('amazon-seller');
  const regional = region === 'NA' ? '' : `/${region.toLowerCase()}`;
  const consent = await injectForm(t, `/sandbox/amazon-seller${regional}/apps/authorize/consent`, {
    application_id: seller.appId,
    state: 's',
    redirect_uri: redirectUri,
    decision: 'allow',
    account: String(account),
    ...choices,
  });
  assert.equal(consent.statusCode, 302, consent.body);
  const back = new URL(consent.headers.location as string).searchParams;
  const tokens = await fetch(`${t.deps.sandbox.sandboxUrl}/amazon-seller/auth/o2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.get('spapi_oauth_code')!,
      redirect_uri: redirectUri,
      client_id: seller.lwaClientId,
      client_secret: seller.lwaClientSecret,
    }),
  });
  assert.equal(tokens.status, 200);
  const token = ((await tokens.json()) as { access_token: string }).access_token;
  return { account, token, sellerId: back.get('selling_partner_id')! };
}

/**
 * One call of SQS's JSON protocol to the sandbox's queue endpoint, signed with the sandbox's key unless `sign` is null
 * (`sign` may change the key, or the `X-Amz-Date`).
 */
export function sqsRequest(
  sandboxUrl: string,
  operation: string,
  input: object,
  sign: { secretAccessKey?: string; accessKeyId?: string; amzDate?: string } | null = {},
): Promise<Response> {
  const aws = SANDBOX_CLIENTS.amazonSqs;
  const url = new URL(`${sandboxUrl}/amazon-seller/sqs/`);
  const body = JSON.stringify(input);
  const headers: Record<string, string> = { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': `AmazonSQS.${operation}` };
  if (sign) {
    if (sign.amzDate) headers['X-Amz-Date'] = sign.amzDate;
    const signed = aws4.sign(
      { host: url.host, path: url.pathname, method: 'POST', service: 'sqs', region: aws.region, headers, body },
      { accessKeyId: sign.accessKeyId ?? aws.accessKeyId, secretAccessKey: sign.secretAccessKey ?? aws.secretAccessKey },
    );
    Object.assign(headers, signed.headers);
  }
  return fetch(url, { method: 'POST', headers, body });
}

/** X-Amz-Date's form of a time: `20261204T173000Z`. */
export const amzDate = (at: Date) => at.toISOString().replace(/[:-]|\.\d{3}/g, '');
