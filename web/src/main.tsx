/** The dashboard: one page per address, chosen from the location. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Account } from './pages/account';
import { ApiAccess } from './pages/api-access';
import { AuthPage } from './pages/auth';
import { DashboardRedirect, WorkspaceDashboard } from './pages/dashboard';
import { NotFound } from './pages/not-found';
import { ProductEditor } from './pages/product-editor';
import { ProductList } from './pages/products';
import { SiteListings } from './pages/site';
import { useLocation } from './router';
import { RequireSession } from './ui';
import { WorkspaceGate } from './workspace-gate';
import './styles.css';

function App() {
  const url = useLocation();
  const path = url.pathname.replace(/\/+$/, '') || '/';
  if (path === '/signup') return <AuthPage key="signup" mode="signup" />;
  if (path === '/login') return <AuthPage key="login" mode="login" />;
  const workspace = /^\/workspace\/([^/]+)\/dashboard$/.exec(path);
  const site = /^\/site\/([^/]+)\/listings$/.exec(path);
  const products = /^\/workspace\/([^/]+)\/products$/.exec(path);
  const product = /^\/workspace\/([^/]+)\/products\/([^/]+)$/.exec(path);
  const known =
    workspace || site || products || product || ['/', '/dashboard', '/profile/developer/api-access', '/profile/account'].includes(path);
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
          {() => <ProductEditor workspaceId={product[1]!} productId={product[2] === 'new' ? null : product[2]!} />}
        </WorkspaceGate>
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
