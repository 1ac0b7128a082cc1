/** The dashboard: one page per address, chosen from the location. */
import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { Account } from './pages/account';
import { ApiAccess } from './pages/api-access';
import { AuditLog } from './pages/audit-log';
import { AuthPage } from './pages/auth';
import { DashboardRedirect, WorkspaceDashboard } from './pages/dashboard';
import { InvitePage } from './pages/invite';
import { NotFound } from './pages/not-found';
import { OrderPage } from './pages/order-page';
import { OrdersPage } from './pages/orders';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/password-reset';
import { ProductEditor } from './pages/product-editor';
import { ProductList } from './pages/products';
import { SiteListings } from './pages/site';
import { Webhooks } from './pages/webhooks';
import { WorkspaceSettings } from './pages/workspace-settings';
import { useLocation } from './router';
import { Frame, Loading, lastWorkspace, RequireSession } from './ui';
import { ManagersOnly, WorkspaceGate } from './workspace-gate';
import './styles.css';

/** A listing's page, with its advertising and their chart, is loaded on its own when first opened (docs/dashboard.md). */
const ListingPage = lazy(() => import('./pages/listing').then((module) => ({ default: module.ListingPage })));

/** A path segment decoded, or as it is when it is not valid percent-encoding (a link cut short must not stop the app). */
function decodeOr(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function App() {
  const url = useLocation();
  const path = url.pathname.replace(/\/+$/, '') || '/';
  if (path === '/signup') return <AuthPage key="signup" mode="signup" />;
  if (path === '/login') return <AuthPage key="login" mode="login" />;
  if (path === '/forgot-password') return <ForgotPasswordPage />;
  if (path === '/reset-password') return <ResetPasswordPage />;
  const invite = /^\/invite\/([^/]+)$/.exec(path);
  // Signed out, the invitation's own page says to sign in or sign up first (and brings the visitor back to it).
  if (invite) return <InvitePage key={invite[1]} token={decodeOr(invite[1]!)} />;
  const settings = /^\/workspace\/([^/]+)\/(settings|webhooks|audit-log)$/.exec(path);
  const workspace = /^\/workspace\/([^/]+)\/dashboard$/.exec(path);
  const site = /^\/site\/([^/]+)\/listings$/.exec(path);
  const listing = /^\/site\/([^/]+)\/listings\/([^/]+)$/.exec(path);
  const products = /^\/workspace\/([^/]+)\/products$/.exec(path);
  const product = /^\/workspace\/([^/]+)\/products\/([^/]+)$/.exec(path);
  const orders = /^\/workspace\/([^/]+)\/orders$/.exec(path);
  const order = /^\/workspace\/([^/]+)\/orders\/([^/]+)$/.exec(path);
  const known =
    workspace ||
    site ||
    listing ||
    products ||
    product ||
    orders ||
    order ||
    settings ||
    ['/', '/dashboard', '/profile/developer/api-access', '/profile/account'].includes(path);
  if (!known) return <NotFound />;
  return (
    <RequireSession>
      {workspace ? (
        <WorkspaceDashboard key={workspace[1]} workspaceId={workspace[1]!} search={url.searchParams} />
      ) : products ? (
        <WorkspaceGate key={products[1]} workspaceId={products[1]!}>
          {() => <ProductList workspaceId={products[1]!} search={url.searchParams} />}
        </WorkspaceGate>
      ) : product ? (
        <WorkspaceGate key={path} workspaceId={product[1]!}>
          {(w) => <ProductEditor workspaceId={product[1]!} productId={product[2] === 'new' ? null : product[2]!} role={w.role} />}
        </WorkspaceGate>
      ) : orders ? (
        <WorkspaceGate key={orders[1]} workspaceId={orders[1]!}>
          {(w) => <OrdersPage workspace={w} search={url.searchParams} />}
        </WorkspaceGate>
      ) : order ? (
        <WorkspaceGate key={path} workspaceId={order[1]!}>
          {(w) => <OrderPage workspace={w} orderId={order[2]!} />}
        </WorkspaceGate>
      ) : settings ? (
        <WorkspaceGate key={path} workspaceId={settings[1]!}>
          {(w) =>
            settings[2] === 'settings' ? (
              <WorkspaceSettings workspace={w} />
            ) : settings[2] === 'webhooks' ? (
              <ManagersOnly workspace={w} title="Webhooks">
                <Webhooks workspace={w} />
              </ManagersOnly>
            ) : (
              <ManagersOnly workspace={w} title="Audit log">
                <AuditLog workspace={w} search={url.searchParams} />
              </ManagersOnly>
            )
          }
        </WorkspaceGate>
      ) : listing ? (
        <Suspense
          fallback={
            <Frame workspaceId={lastWorkspace.get()}>
              <Loading what="the listing" />
            </Frame>
          }
        >
          <ListingPage key={path} siteId={listing[1]!} listingId={listing[2]!} search={url.searchParams} />
        </Suspense>
      ) : site ? (
        <SiteListings key={site[1]} siteId={site[1]!} search={url.searchParams} />
      ) : path === '/profile/developer/api-access' ? (
        <ApiAccess />
      ) : path === '/profile/account' ? (
        <Account />
      ) : (
        <DashboardRedirect search={url.search} />
      )}
    </RequireSession>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
