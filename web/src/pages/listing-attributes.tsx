/**
 * The attributes of a listing's category, to name an issue's attribute by the platform's label ("Material", not
 * "Attribute 507"). Read only for a listing with an issue on an attribute, and once per site and category for the life
 * of the page: a table of 25 listings in one category asks once, and polling asks for none again.
 */
import { useEffect, useState } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { type Attribute, type FixLinks, IssueList, type Listing, type NamedVariant } from './listing-parts';

const read = new Map<string, Promise<readonly Attribute[]>>();

function attributesOf(workspaceId: string, siteId: number, categoryId: string): Promise<readonly Attribute[]> {
  const key = `${workspaceId}:${siteId}:${categoryId}`;
  let attributes = read.get(key);
  if (!attributes) {
    attributes = api
      .GET('/api/v1/sites/{site_id}/categories/{category_id}/attributes', {
        params: { path: { site_id: siteId, category_id: categoryId }, header: inWorkspace(workspaceId) },
      })
      .then((result) => unwrap(result).data)
      // Without them an issue still reads, by the attribute's key: no error to show for a label.
      .catch(() => {
        read.delete(key);
        return [];
      });
    read.set(key, attributes);
  }
  return attributes;
}

/** The listing's category's attributes once read, when an issue of the listing is on an attribute; else undefined. */
export function useIssueAttributes(
  workspaceId: string,
  listing: Pick<Listing, 'site_id' | 'category_id' | 'issues'>,
): readonly Attribute[] | undefined {
  const [attributes, setAttributes] = useState<readonly Attribute[] | undefined>(undefined);
  const wanted = listing.issues.some((issue) => issue.field?.startsWith('attributes.'));
  const { site_id: siteId, category_id: categoryId } = listing;
  useEffect(() => {
    if (!wanted) return;
    let current = true;
    void attributesOf(workspaceId, siteId, categoryId).then((found) => {
      if (current) setAttributes(found);
    });
    return () => {
      current = false;
    };
  }, [wanted, workspaceId, siteId, categoryId]);
  return attributes;
}

/** The listing's issues (IssueList), an attribute named by its platform label: its category's attributes read for it. */
export function ListingIssueList({
  listing,
  workspaceId,
  ...shown
}: {
  listing: Pick<Listing, 'site_id' | 'category_id' | 'issues'>;
  workspaceId: string;
  platform?: string;
  variants?: readonly NamedVariant[];
  fixAt?: FixLinks;
}) {
  const attributes = useIssueAttributes(workspaceId, listing);
  return <IssueList issues={listing.issues} attributes={attributes} {...shown} />;
}
