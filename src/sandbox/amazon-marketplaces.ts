/** The marketplaces of a sandbox Amazon account, per region, as both Amazon simulators describe them. */
import type { AmazonRegion } from '../domain/index.js';

export interface SandboxMarketplace {
  /** The marketplace id (the SP-API marketplace table). */
  id: string;
  /** Its country as SP-API spells it (ISO 3166: `GB`). */
  countryCode: string;
  /** Its country as an Ads profile spells it (`UK` for the United Kingdom). */
  adsCountryCode: string;
  name: string;
  currency: string;
  timezone: string;
}

export const SANDBOX_MARKETPLACES: Readonly<Record<AmazonRegion, readonly SandboxMarketplace[]>> = {
  NA: [
    { id: 'ATVPDKIKX0DER', countryCode: 'US', adsCountryCode: 'US', name: 'Amazon.com', currency: 'USD', timezone: 'America/Los_Angeles' },
    { id: 'A2EUQ1WTGCTBG2', countryCode: 'CA', adsCountryCode: 'CA', name: 'Amazon.ca', currency: 'CAD', timezone: 'America/Los_Angeles' },
  ],
  EU: [
    { id: 'A1F83G8C2ARO7P', countryCode: 'GB', adsCountryCode: 'UK', name: 'Amazon.co.uk', currency: 'GBP', timezone: 'Europe/London' },
    { id: 'A1PA6795UKMFR9', countryCode: 'DE', adsCountryCode: 'DE', name: 'Amazon.de', currency: 'EUR', timezone: 'Europe/Paris' },
  ],
  FE: [
    { id: 'A1VC38T7YXB528', countryCode: 'JP', adsCountryCode: 'JP', name: 'Amazon.co.jp', currency: 'JPY', timezone: 'Asia/Tokyo' },
    { id: 'A39IBJ37TRP1C6', countryCode: 'AU', adsCountryCode: 'AU', name: 'Amazon.com.au', currency: 'AUD', timezone: 'Australia/Sydney' },
  ],
};
