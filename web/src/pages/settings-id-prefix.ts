import { createContext } from 'react';

/**
 * What the listing settings form's element ids start with: nothing on the site's page, another prefix where the same
 * form is shown a second time in the page (inside the publish dialog), so no id, label or description points at the
 * other copy.
 */
export const SettingsIdPrefix = createContext('');
