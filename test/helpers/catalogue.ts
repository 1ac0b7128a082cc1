/** A new user with the catalogue calls the CSV and handle tests make: products, POST/PATCH, and the CSV import. */
import { API, call, registerUser, type TestApp } from './test-app.js';

export async function catalogueUser(t: TestApp) {
  const user = await registerUser(t);
  const as = { token: user.session, workspace: user.workspace.id };
  const headers = { authorization: `Bearer ${user.session}`, 'x-workspace-id': String(user.workspace.id), 'content-type': 'text/csv' };
  return {
    ...user,
    as,
    post: (body: unknown) => call(t, 'POST', '/products', { ...as, body }),
    patch: (id: number, body: unknown) => call(t, 'PATCH', `/products/${id}`, { ...as, body }),
    /** The workspace's products, the first 100. */
    products: async () => (await call(t, 'GET', '/products?per_page=100', as)).json().data,
    importCsv: (payload: string, query = '') => t.app.inject({ method: 'POST', url: `${API}/products/import${query}`, headers, payload }),
  };
}
