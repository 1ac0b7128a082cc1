/**
 * "Import listings": the shop's existing listings brought into Storelink (POST /sites/{id}/listings/import), with what
 * it does said before it starts, and its progress read every 2 s while it runs (GET of the same path).
 */
import { useCallback, useEffect, useState } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { Confirm, useFocusReturn } from '../confirm';
import { ErrorMessage, platformName } from '../ui';

type Import = NonNullable<paths['/api/v1/sites/{site_id}/listings/import']['get']['responses'][200]['content']['application/json']['data']>;

const POLL_MS = 2_000;

export function ListingImport({
  siteId,
  workspaceId,
  platform,
  onProgress,
}: {
  siteId: number;
  workspaceId: string;
  platform: string;
  onProgress: () => void;
}) {
  const [current, setCurrent] = useState<Import | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const { opener, focusNext } = useFocusReturn();

  const load = useCallback(async () => {
    const params = { path: { site_id: siteId }, header: inWorkspace(workspaceId) };
    try {
      setCurrent(unwrap(await api.GET('/api/v1/sites/{site_id}/listings/import', { params })).data);
    } catch (caught) {
      setError(caught as Error);
    }
  }, [siteId, workspaceId]);

  useEffect(() => {
    void load();
  }, [load]);

  // While it runs, the progress and the listings table are read again; once more when it ends.
  const running = current?.status === 'running';
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => {
      void load();
      onProgress();
    }, POLL_MS);
    return () => {
      clearInterval(timer);
      onProgress();
    };
  }, [running, load, onProgress]);

  async function start() {
    setError(null);
    try {
      const params = { path: { site_id: siteId }, header: inWorkspace(workspaceId) };
      const started = unwrap(await api.POST('/api/v1/sites/{site_id}/listings/import', { params }));
      setCurrent(started.data);
      setConfirming(false);
      // The button waits while the import runs: its progress, which it opened, has the focus meanwhile.
      focusNext(() => (opener.current?.disabled ? document.getElementById(`import-progress-${siteId}`) : opener.current));
    } catch (caught) {
      setError(caught as Error);
    }
  }

  const name = platformName(platform);
  // "this Etsy shop", but "this TikTok Shop" (its name says shop already).
  const shop = /\bshop$/i.test(name) ? name : `${name} shop`;
  return (
    <div className="listing-import">
      {!confirming && (
        <button type="button" ref={opener} onClick={() => setConfirming(true)} disabled={running}>
          {running ? 'Importing…' : 'Import listings'}
        </button>
      )}
      {confirming && (
        <Confirm
          id="confirm-import"
          tone="neutral"
          confirmLabel="Yes, import"
          onConfirm={() => void start()}
          onCancel={() => {
            setConfirming(false);
            focusNext();
          }}
        >
          Import the listings this {shop} already has? Each is linked to the catalogue product with the same SKU, or a product is made from
          it. Nothing is changed on {name}: where a linked product differs from the shop, the listing shows both values for you to send the
          catalogue&rsquo;s or take {name}&rsquo;s.
        </Confirm>
      )}
      {current && <ImportProgress current={current} id={`import-progress-${siteId}`} />}
      {error && <ErrorMessage error={error} title="Could not import the listings" />}
    </div>
  );
}

function ImportProgress({ current, id }: { current: Import; id: string }) {
  const counts = `${current.found} found: ${current.created} products made, ${current.linked} linked by SKU, ${current.updated} already here, ${current.skipped} skipped`;
  return (
    <div role="status" className="import-progress" id={id} tabIndex={-1}>
      <p>
        {current.status === 'running' && `Importing… ${counts}.`}
        {current.status === 'done' && `Import done. ${counts}.`}
        {current.status === 'failed' && `Import stopped: ${current.error ?? 'unknown error'} ${counts}.`}
      </p>
      {current.skips.length > 0 && (
        <details>
          <summary>Skipped listings</summary>
          <ul>
            {current.skips.map((skip) => (
              <li key={skip.external_id}>
                {skip.title} (<code>{skip.external_id}</code>): {skip.message}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
