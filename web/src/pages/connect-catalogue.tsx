/**
 * The platforms a workspace can connect (GET /platforms), each with what its connection allows and a "Sandbox" badge
 * when this server runs it against its simulator; and the attention banner for sites that must be connected again
 * (ux review §2.4).
 */
import { api, unwrap } from '../api/client';
import { Link } from '../router';
import { ErrorMessage, Loading, platformName, useRequest } from '../ui';
import { ConnectButton } from './connect';

/** What a connection of each track is, in a line (the API's `allows` says what it gives). */
const SUMMARY: Record<string, string> = {
  etsy: 'An Etsy shop.',
  'tiktok-shop': 'Every shop of a TikTok Shop seller account, each a site of its own.',
  'amazon-seller': 'An Amazon seller account in one region: North America, Europe or the Far East.',
  'amazon-ads': 'The advertising account of a connected Amazon seller site.',
};

const loadPlatforms = async () => unwrap(await api.GET('/api/v1/platforms', {})).data;
type Platform = Awaited<ReturnType<typeof loadPlatforms>>[number];

/** The track's Connect: Amazon's with its region select; Amazon Ads is connected from a seller site's row. */
function PlatformAction({ platform, workspaceId }: { platform: Platform; workspaceId: string }) {
  if (platform.needs_site)
    return <p className="muted small">Connect an Amazon seller account first, then “Connect advertising” on its row below.</p>;
  const label = `Connect ${platform.name}`;
  const id = platform.platform_id as 1 | 4 | 5;
  return <ConnectButton workspaceId={workspaceId} platformId={id} label={label} chooseRegion={platform.track === 'amazon-seller'} />;
}

/** The connect catalogue (owners and admins: connecting is theirs). */
export function ConnectCatalogue({ workspaceId }: { workspaceId: string }) {
  const platforms = useRequest(loadPlatforms, 'platforms');
  const sandbox = platforms.state === 'ready' && platforms.data.some((p) => p.sandbox);
  return (
    <section aria-labelledby="connect-heading" className="card">
      <h2 id="connect-heading">Connect a platform</h2>
      {platforms.state === 'loading' && <Loading what="the platforms" />}
      {platforms.state === 'error' && <ErrorMessage error={platforms.error} title="Could not load the platforms" />}
      {sandbox && (
        <p className="muted small">
          <span className="badge badge-sandbox">Sandbox</span> marks a platform this server runs against its built-in simulator: its consent
          page, shops and listings are pretend, and nothing reaches the real platform.
        </p>
      )}
      {platforms.state === 'ready' && (
        <ul className="catalogue">
          {platforms.data.map((platform) => (
            <li key={platform.track} className="platform-card">
              <h3>
                {platform.track === 'amazon-seller' ? 'Amazon seller' : platform.name}{' '}
                {platform.sandbox && <span className="badge badge-sandbox">Sandbox</span>}
              </h3>
              {SUMMARY[platform.track] && <p>{SUMMARY[platform.track]}</p>}
              <p className="label small">What the connection allows</p>
              <ul className="allows">
                {platform.allows.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
              <div className="platform-action">
                <PlatformAction platform={platform} workspaceId={workspaceId} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

type SiteLike = {
  id: number;
  name: string;
  platform: string;
  platform_id: number;
  region: string | null;
  status: string;
  status_reason: string | null;
};

/** A Connect of the site's own platform (and region), named for the site: the same account consenting updates it. */
export function ReconnectButton({ site, workspaceId }: { site: SiteLike; workspaceId: string }) {
  return (
    <ConnectButton
      workspaceId={workspaceId}
      platformId={site.platform_id as 1 | 4 | 5}
      region={site.region}
      label="Reconnect"
      name={`Reconnect ${site.name}`}
    />
  );
}

/**
 * The sites the platforms stopped accepting (reauthorization required), each with Reconnect for those who may connect;
 * nothing when there are none.
 */
export function AttentionBanner({ sites, workspaceId, canConnect }: { sites: SiteLike[]; workspaceId: string; canConnect: boolean }) {
  const broken = sites.filter((site) => site.status === 'reauthorization_required');
  if (broken.length === 0) return null;
  const heading = broken.length === 1 ? '1 site needs to be reconnected' : `${broken.length} sites need to be reconnected`;
  return (
    <section className="alert alert-warning attention" aria-labelledby="attention-heading">
      <h2 id="attention-heading">{heading}</h2>
      <p>
        The platform no longer accepts Storelink’s access to {broken.length === 1 ? 'this site' : 'these sites'}: the connection was removed
        on the platform, or it ran out. Until it is reconnected, Storelink can neither read nor change anything there.
        {canConnect
          ? ' Reconnect with the same account: the site keeps its id, listings and settings.'
          : ' Ask an owner or admin of this workspace to reconnect it.'}
      </p>
      <ul className="attention-list">
        {broken.map((site) => (
          <li key={site.id}>
            <div>
              <Link href={`/site/${site.id}/listings`}>{site.name}</Link> <span className="muted">on {platformName(site.platform)}</span>
              {site.status_reason && <p className="small status-reason">{site.status_reason}</p>}
            </div>
            {canConnect && <ReconnectButton site={site} workspaceId={workspaceId} />}
          </li>
        ))}
      </ul>
    </section>
  );
}
