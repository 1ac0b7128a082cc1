/** Which webhook targets are public (DESIGN §8): the address classification, names through a resolver, the pinned connection. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { postPinned } from '../../src/lib/outbound-http.js';
import { isGloballyRoutable, type ResolvedAddress, resolveTarget, systemResolveHost } from '../../src/lib/public-address.js';

const NOT_PUBLIC = [
  // IPv4: unspecified, loopback, RFC 1918, link-local (cloud metadata), CGNAT, IETF protocol assignments, benchmarking,
  // documentation, 6to4 relay, multicast, reserved, broadcast.
  ['0.0.0.0', '0.1.2.3', '127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1'],
  ['169.254.169.254', '100.64.0.1', '100.127.255.254', '192.0.0.1', '192.0.0.170', '198.18.0.1', '198.19.255.254'],
  ['192.0.2.1', '198.51.100.7', '203.0.113.9', '192.88.99.1', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255'],
  // IPv6: loopback, unspecified, IPv4-compatible (::7f00:1 is ::127.0.0.1), IPv4-mapped of private ones, NAT64 (both
  // prefixes), discard, unique-local, link-local, site-local, multicast, documentation, Teredo, 6to4, ORCHIDv2.
  ['::1', '::', '::7f00:1', '::a00:1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254'],
  ['::ffff:0:7f00:1', '64:ff9b::7f00:1', '64:ff9b::808:808', '64:ff9b:1::1', '100::1', 'fc00::1', 'fd12:3456::1', 'fe80::1'],
  ['fe80::1%eth0', 'fec0::1', 'ff02::1', 'ff0e::1', '2001:db8::1', '2001::1', '2002:7f00:1::1', '2001:20::1', '3fff::1'],
  // Not addresses at all.
  ['', 'localhost', 'example.com', '127.1', '2130706433', '0x7f000001', '[::1]', '1.2.3.4.5'],
].flat();

const PUBLIC = ['93.184.216.34', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '::ffff:8.8.8.8', '2606:4700:4700::1111'];

test('loopback, private, link-local, multicast, CGNAT, NAT64 and other special-purpose addresses are not public', () => {
  for (const address of NOT_PUBLIC) assert.equal(isGloballyRoutable(address), false, address);
});

test('globally routable unicast addresses are public, an IPv4-mapped one as the IPv4 address it reaches', () => {
  for (const address of PUBLIC) assert.equal(isGloballyRoutable(address), true, address);
});

/** A resolver answering from a table, as a hosts file or a DNS zone would; an unknown name does not resolve. */
function resolverOf(table: Record<string, string[]>) {
  return async (name: string): Promise<ResolvedAddress[]> => {
    const addresses = table[name];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const resolve = resolverOf({
  'localhost.localdomain': ['127.0.0.1'],
  'ip6-localhost': ['::1'],
  vm: ['127.0.0.1'],
  'metadata.cloud.example': ['169.254.169.254'],
  'intranet.example': ['10.0.0.5'],
  'mixed.example': ['93.184.216.34', '10.0.0.5'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'hooks.example': ['93.184.216.34', '2606:4700:4700::1111'],
  'empty.example': [],
});
const hostOf = (url: string) => new URL(url).hostname;

test('hosts as URLs spell them are refused when they are, or resolve to, anything but public addresses', async () => {
  const urls = [
    'http://localhost/',
    'http://localhost./',
    'http://LOCALHOST:6379/',
    'http://api.localhost./',
    'http://localhost.localdomain:6379/',
    'http://ip6-localhost/',
    'http://vm:8080/',
    'http://metadata.cloud.example/latest/meta-data/',
    'http://intranet.example/',
    'http://mixed.example/',
    'http://mapped.example/',
    'http://[::7f00:1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[64:ff9b::a00:1]/',
    'http://[fec0::1]/',
    'http://[ff02::1]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://198.18.0.1/',
    'http://192.0.0.1/',
    'http://224.0.0.1/',
    'http://240.0.0.1/',
    'http://255.255.255.255/',
  ];
  for (const url of urls)
    assert.deepEqual(await resolveTarget(hostOf(url), { resolve, allowPrivate: false }), { ok: false, reason: 'not_public' }, url);
});

test('a name that does not resolve, or resolves to nothing, is unresolved', async () => {
  for (const url of ['http://nowhere.example/', 'http://empty.example/'])
    assert.deepEqual(await resolveTarget(hostOf(url), { resolve, allowPrivate: false }), { ok: false, reason: 'unresolved' }, url);
});

test('a name resolving only to public addresses gives every one of them to connect to; a public literal gives itself', async () => {
  assert.deepEqual(await resolveTarget('hooks.example', { resolve, allowPrivate: false }), {
    ok: true,
    addresses: [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700:4700::1111', family: 6 },
    ],
  });
  assert.deepEqual(await resolveTarget(hostOf('https://[2606:4700:4700::1111]/'), { resolve, allowPrivate: false }), {
    ok: true,
    addresses: [{ address: '2606:4700:4700::1111', family: 6 }],
  });
});

test('with private targets allowed, loopback names and addresses resolve and are kept', async () => {
  assert.deepEqual(await resolveTarget('vm', { resolve, allowPrivate: true }), {
    ok: true,
    addresses: [{ address: '127.0.0.1', family: 4 }],
  });
  assert.deepEqual(await resolveTarget('[::1]', { resolve, allowPrivate: true }), { ok: true, addresses: [{ address: '::1', family: 6 }] });
});

test('a resolution that outlasts the deadline is unresolved when the deadline passes', async () => {
  const since = performance.now();
  // A real lookup in flight keeps the process alive; this one, which never settles, does not (nor does the signal's timer).
  const alive = setTimeout(() => {}, 5_000);
  const target = await resolveTarget('slow.example', {
    resolve: () => new Promise(() => {}),
    allowPrivate: false,
    signal: AbortSignal.timeout(100),
  });
  clearTimeout(alive);
  assert.deepEqual(target, { ok: false, reason: 'unresolved' });
  assert.ok(performance.now() - since < 1_000);
});

/** Names this machine's hosts file maps to loopback (the review's `vm`), read from the file itself. */
function loopbackNamesInHostsFile(): string[] {
  const lines = readFileSync('/etc/hosts', 'utf8').split('\n');
  return lines
    .map((line) => line.replace(/#.*/, '').trim().split(/\s+/))
    .filter(([address]) => address === '::1' || address?.startsWith('127.'))
    .flatMap(([, ...names]) => names)
    .filter((name) => !/localhost/i.test(name));
}

test("names in the system's hosts file that point at loopback are refused through the system resolver", async (t) => {
  const names = loopbackNamesInHostsFile();
  if (names.length === 0) return t.skip('no such name in /etc/hosts');
  for (const name of names)
    assert.deepEqual(
      await resolveTarget(name, { resolve: systemResolveHost, allowPrivate: false }),
      { ok: false, reason: 'not_public' },
      name,
    );
});

test('a pinned POST connects to the address it is given, keeping the name in the Host header, and follows no redirect', async () => {
  const seen: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.host);
    res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  try {
    const status = await postPinned(new URL(`http://hooks.never-resolved.example:${port}/x`), {
      addresses: [{ address: '127.0.0.1', family: 4 }],
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(5_000),
    });
    assert.equal(status, 302);
    assert.deepEqual(seen, [`hooks.never-resolved.example:${port}`]);
  } finally {
    await new Promise((done) => server.close(done));
  }
});
