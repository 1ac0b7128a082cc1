/**
 * The Amazon seller simulator: SP-API website authorization's consent page and redirect back, and LWA's token
 * endpoint (platforms.md §3, DESIGN §6).
 */
import type { FastifyInstance } from 'fastify';
import { firstValues } from '../../lib/params.js';
import { consentChoice, renderConsentPage, renderSandboxError } from '../consent-page.js';
import { countCall, SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import { createLwaSimulator, deniedParams, redirectBack, sandboxSellerId } from '../lwa/simulator.js';

type Params = Record<string, string | undefined>;
const CLIENT = SANDBOX_CLIENTS.amazonSeller;
const NAME = 'Amazon Seller Central';

export function registerAmazonSellerSimulator(app: FastifyInstance, context: SandboxContext) {
  const lwa = createLwaSimulator(context, { track: 'amazon-seller', clientId: CLIENT.lwaClientId, clientSecret: CLIENT.lwaClientSecret });
  const registered = context.callbackUrl('amazon-seller');

  /** Seller Central shows an error page and never redirects for an unknown app or redirect URI. The sandbox app is published. */
  const requestProblem = (p: Params) => {
    if (p.application_id !== CLIENT.appId) return 'Unknown application_id.';
    // An omitted redirect_uri means the first registered one (platforms.md §3.1).
    if (p.redirect_uri !== undefined && p.redirect_uri !== registered)
      return 'MD5101: the redirect_uri does not match a registered redirect URI.';
    if (p.version !== undefined && p.version !== 'beta') return 'version must be beta, or left out.';
    return null;
  };

  app.get('/authorize', async (request, reply) => {
    countCall(context, 'amazon-seller', 'authorize');
    const query = request.query as Params;
    const problem = requestProblem(query);
    if (problem) return reply.code(400).type('text/html').send(renderSandboxError(NAME, problem));
    const params = firstValues(query);
    const access = ['Selling Partner API access to your seller account, for the roles the app is registered with'];
    return reply
      .type('text/html')
      .send(renderConsentPage({ platformName: NAME, appName: 'Storelink', access, action: '/sandbox/amazon-seller/authorize', params }));
  });

  app.post('/authorize', async (request, reply) => {
    countCall(context, 'amazon-seller', 'consent');
    const form = (request.body ?? {}) as Params;
    const choice = consentChoice(reply, NAME, form, requestProblem(form));
    if (!choice) return reply;
    const { account } = choice;
    const redirectUri = form.redirect_uri ?? registered;
    if (form.decision === 'deny') return reply.redirect(redirectBack(redirectUri, deniedParams(form.state)), 302);
    // Not a hybrid (MWS) app, so no mws_auth_token.
    const code = lwa.issueCode({ account, redirectUri, fail: form.decision === 'fail' });
    return reply.redirect(
      redirectBack(redirectUri, { state: form.state, selling_partner_id: sandboxSellerId(account), spapi_oauth_code: code }),
      302,
    );
  });

  lwa.registerTokenEndpoint(app);
}
