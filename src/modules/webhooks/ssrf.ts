import { promises as dns } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/*
 * Server-side request forgery guard for webhook targets. A target must be https and every address
 * its host resolves to must be public. The URL is parsed with the WHATWG parser first, which turns
 * the decimal, hex and octal IPv4 spellings (2130706433, 0x7f.1, 0177.0.0.1) into dotted quads, so
 * one address check covers them all.
 */

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** DNS resolution, injectable so tests can play a hostile resolver without leaving the machine. */
export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: LookupFn = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** A target the guard refuses; the message is meant for the issuer who registered it. */
export class UnsafeTargetError extends Error {
  override name = 'UnsafeTargetError';
}

const RANGES: [label: string, family: 'ipv4' | 'ipv6', network: string, prefix: number][] = [
  ['an unspecified ("this network")', 'ipv4', '0.0.0.0', 8],
  ['a private', 'ipv4', '10.0.0.0', 8],
  ['a carrier-grade NAT', 'ipv4', '100.64.0.0', 10],
  ['a loopback', 'ipv4', '127.0.0.0', 8],
  ['a link-local', 'ipv4', '169.254.0.0', 16],
  ['a private', 'ipv4', '172.16.0.0', 12],
  ['a reserved (IETF protocol assignments)', 'ipv4', '192.0.0.0', 24],
  ['a documentation', 'ipv4', '192.0.2.0', 24],
  ['a private', 'ipv4', '192.168.0.0', 16],
  ['a benchmarking', 'ipv4', '198.18.0.0', 15],
  ['a documentation', 'ipv4', '198.51.100.0', 24],
  ['a documentation', 'ipv4', '203.0.113.0', 24],
  ['a multicast', 'ipv4', '224.0.0.0', 4],
  ['a reserved', 'ipv4', '240.0.0.0', 4],
  ['an unspecified, loopback or IPv4-compatible', 'ipv6', '::', 96],
  ['an IPv4-mapped', 'ipv6', '::ffff:0:0', 96],
  ['a NAT64', 'ipv6', '64:ff9b::', 96],
  ['a NAT64', 'ipv6', '64:ff9b:1::', 48],
  ['a discard-only', 'ipv6', '100::', 64],
  ['a documentation', 'ipv6', '2001:db8::', 32],
  ['a 6to4', 'ipv6', '2002::', 16],
  ['a unique-local', 'ipv6', 'fc00::', 7],
  ['a link-local', 'ipv6', 'fe80::', 10],
  ['a multicast', 'ipv6', 'ff00::', 8],
];

// One list per range: BlockList answers only yes/no, and an IPv4 address checked against an IPv6
// rule matches as its mapped form, so each family is only checked against its own rules.
const RULES = RANGES.map(([label, family, network, prefix]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { label, family, list };
});

/** Why an address may not be a webhook target (e.g. "a loopback"), or null when it is public. */
export function blockedRange(address: string): string | null {
  const version = isIP(address);
  if (version === 0) return 'an unparseable';
  const family = version === 4 ? 'ipv4' : 'ipv6';
  return RULES.find((rule) => rule.family === family && rule.list.check(address, family))?.label ?? null;
}

/** The URL host as a bare name or address: IPv6 brackets and a trailing root dot removed. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/**
 * Checks the form of a target URL: scheme, credentials, literal addresses and localhost names.
 * With `allowPrivate` (development, tests) plain http and private addresses are accepted.
 */
export function parseTargetUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeTargetError('The webhook URL is not a valid absolute URL.');
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new UnsafeTargetError(
      allowPrivate
        ? `The webhook URL must use https (or http in development), not ${url.protocol.slice(0, -1)}.`
        : `The webhook URL must use https, not ${url.protocol.slice(0, -1)}.`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new UnsafeTargetError(
      'The webhook URL must not contain a user name or password; receivers authenticate deliveries by their signature.',
    );
  }
  if (allowPrivate) return url;
  const host = bareHost(url).toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) {
    throw new UnsafeTargetError(`The webhook URL points to a loopback host (${host}); it must be a public address.`);
  }
  if (isIP(host) !== 0) assertPublic(host, host);
  return url;
}

/**
 * A refused name is not explained: saying what it resolved to (or to which kind of range) would turn
 * registration into a DNS oracle for the service's private network. A literal address only names
 * the range of what the caller wrote.
 */
export const HOST_NOT_ALLOWED = "The webhook URL's host is not allowed; webhooks may only target public addresses.";

function assertPublic(host: string, address: string): void {
  const range = blockedRange(address);
  if (range === null) return;
  if (host !== address) throw new UnsafeTargetError(HOST_NOT_ALLOWED);
  throw new UnsafeTargetError(
    `The webhook URL points to ${range} address (${address}); webhooks may only target public addresses.`,
  );
}

/**
 * Resolves the host and checks every address it resolves to; the caller must then connect to the
 * returned address only, so a second resolution (DNS rebinding) cannot send the request elsewhere.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean, lookup: LookupFn): Promise<ResolvedAddress> {
  const host = bareHost(url);
  const version = isIP(host);
  const addresses = version !== 0 ? [{ address: host, family: version }] : await lookup(host);
  const first = addresses[0];
  if (!first) throw new UnsafeTargetError(HOST_NOT_ALLOWED);
  if (!allowPrivate) for (const { address } of addresses) assertPublic(host, address);
  return first;
}
