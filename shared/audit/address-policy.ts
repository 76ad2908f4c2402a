import { BlockList, isIPv4, isIPv6 } from "node:net";

/**
 * Which addresses the site auditor may connect to. A business homepage lives on a globally
 * routable unicast address; everything else is refused so that a place's `websiteUri` cannot
 * make us reach our own network, the cloud metadata service or a tunnel into either.
 *
 * Ranges follow the IANA IPv4 and IPv6 special-purpose address registries.
 */

type AddressRefusal =
  /** Not an IP address, or an IPv6 address with a zone (`fe80::1%eth0`): only local scopes have zones. */
  | "invalid"
  | "unspecified"
  | "loopback"
  | "private"
  | "link_local"
  /** 100.64.0.0/10, the shared address space of carrier-grade NAT (also holds some clouds' metadata services). */
  | "cgnat"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "benchmarking"
  /** Reserved, deprecated or protocol-specific ranges that no website is served from. */
  | "reserved";

export type AddressCategory = "public" | AddressRefusal;

type Rule = { category: AddressRefusal; subnets: ReadonlyArray<readonly [network: string, prefix: number]> };

/** First match wins, so the narrow broadcast rule sits before the reserved 240/4 that contains it. */
const ipv4Rules: readonly Rule[] = [
  { category: "unspecified", subnets: [["0.0.0.0", 8]] },
  { category: "loopback", subnets: [["127.0.0.0", 8]] },
  {
    category: "private",
    subnets: [
      ["10.0.0.0", 8],
      ["172.16.0.0", 12],
      ["192.168.0.0", 16],
    ],
  },
  { category: "link_local", subnets: [["169.254.0.0", 16]] },
  { category: "cgnat", subnets: [["100.64.0.0", 10]] },
  {
    category: "documentation",
    subnets: [
      ["192.0.2.0", 24],
      ["198.51.100.0", 24],
      ["203.0.113.0", 24],
    ],
  },
  { category: "benchmarking", subnets: [["198.18.0.0", 15]] },
  { category: "multicast", subnets: [["224.0.0.0", 4]] },
  { category: "broadcast", subnets: [["255.255.255.255", 32]] },
  {
    category: "reserved",
    subnets: [
      ["240.0.0.0", 4],
      // IETF protocol assignments (DS-Lite, NAT64 discovery, Oracle Cloud's metadata 192.0.0.192).
      ["192.0.0.0", 24],
      // Deprecated 6to4 relay anycast.
      ["192.88.99.0", 24],
    ],
  },
];

/**
 * IPv6 ranges checked after the forms that embed an IPv4 address have been unwrapped
 * (see `classifyIpv6`). Anything outside 2000::/3, the global unicast space, is refused after these.
 */
const ipv6Rules: readonly Rule[] = [
  { category: "multicast", subnets: [["ff00::", 8]] },
  { category: "link_local", subnets: [["fe80::", 10]] },
  {
    category: "private",
    subnets: [
      ["fc00::", 7],
      // Deprecated site-local addresses.
      ["fec0::", 10],
      // Local-use NAT64 prefix (RFC 8215): translates into the operator's own network.
      ["64:ff9b:1::", 48],
    ],
  },
  {
    category: "documentation",
    subnets: [
      ["2001:db8::", 32],
      ["3fff::", 20],
    ],
  },
  { category: "benchmarking", subnets: [["2001:2::", 48]] },
  // IETF protocol assignments: Teredo (2001::/32, which tunnels to an embedded IPv4 address), ORCHID, ...
  { category: "reserved", subnets: [["2001::", 23]] },
];

type CompiledRule = { category: AddressRefusal; list: BlockList };

function compile(rules: readonly Rule[], family: "ipv4" | "ipv6"): CompiledRule[] {
  return rules.map(({ category, subnets }) => {
    const list = new BlockList();
    for (const [network, prefix] of subnets) list.addSubnet(network, prefix, family);
    return { category, list };
  });
}

const compiledIpv4Rules = compile(ipv4Rules, "ipv4");
const compiledIpv6Rules = compile(ipv6Rules, "ipv6");
const globalUnicastIpv6 = compile([{ category: "reserved", subnets: [["2000::", 3]] }], "ipv6")[0]!.list;

/** Classifies an IP address (dotted IPv4 or IPv6 text, no brackets). */
export function classifyAddress(address: string): AddressCategory {
  if (isIPv4(address)) return classifyIpv4(address);
  if (isIPv6(address)) return classifyIpv6(address);
  return "invalid";
}

/** True only for globally routable unicast addresses. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === "public";
}

/** What `allowPrivateNetworks` opens up: local networks where a demo or test site may run. */
const privateNetworkCategories: ReadonlySet<AddressCategory> = new Set([
  "loopback",
  "private",
  "link_local",
  "cgnat",
]);

/**
 * The auditor's policy: public addresses always; loopback, private, link-local and CGNAT
 * addresses only when private networks are allowed (tests, demos). Multicast, broadcast,
 * unspecified and the other special ranges are never a website.
 */
export function isAllowedAddress(address: string, options: { allowPrivateNetworks: boolean }): boolean {
  const category = classifyAddress(address);
  if (category === "public") return true;
  return options.allowPrivateNetworks && privateNetworkCategories.has(category);
}

function classifyIpv4(address: string): AddressCategory {
  for (const rule of compiledIpv4Rules) {
    if (rule.list.check(address, "ipv4")) return rule.category;
  }
  return "public";
}

function classifyIpv6(address: string): AddressCategory {
  const bytes = parseIpv6(address);
  if (bytes === null) return "invalid";

  const embedded = embeddedIpv4(bytes);
  if (embedded !== null) {
    const category = classifyIpv4(embedded.address);
    // An IPv4-compatible address (deprecated) is never routed to a website even when its IPv4 is public.
    if (category === "public" && embedded.form === "compatible") return "reserved";
    return category;
  }
  if (bytes.every((byte) => byte === 0)) return "unspecified";
  if (bytes.subarray(0, 15).every((byte) => byte === 0) && bytes[15] === 1) return "loopback";

  for (const rule of compiledIpv6Rules) {
    if (rule.list.check(address, "ipv6")) return rule.category;
  }
  if (!globalUnicastIpv6.check(address, "ipv6")) return "reserved";
  return "public";
}

type EmbeddedIpv4 = { form: "mapped" | "translated" | "compatible" | "nat64" | "6to4"; address: string };

/**
 * IPv6 forms that reach an IPv4 address: the connection ends up at that IPv4 address, so it is
 * the one the policy must judge.
 */
function embeddedIpv4(bytes: Uint8Array): EmbeddedIpv4 | null {
  const zeroUpTo = (end: number) => bytes.subarray(0, end).every((byte) => byte === 0);
  const tail = () => ipv4Text(bytes, 12);

  // ::ffff:a.b.c.d
  if (zeroUpTo(10) && bytes[10] === 0xff && bytes[11] === 0xff) return { form: "mapped", address: tail() };
  // ::ffff:0:a.b.c.d (SIIT, RFC 6052 / RFC 2765)
  if (zeroUpTo(8) && bytes[8] === 0xff && bytes[9] === 0xff && bytes[10] === 0 && bytes[11] === 0) {
    return { form: "translated", address: tail() };
  }
  // ::a.b.c.d, but not :: and ::1 themselves
  if (zeroUpTo(12) && !(zeroUpTo(15) && (bytes[15] === 0 || bytes[15] === 1))) {
    return { form: "compatible", address: tail() };
  }
  // 64:ff9b::a.b.c.d, the well-known NAT64 prefix (RFC 6052)
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b) {
    if (bytes.subarray(4, 12).every((byte) => byte === 0)) return { form: "nat64", address: tail() };
  }
  // 2002:AABB:CCDD::/48 carries AA.BB.CC.DD (6to4, RFC 3056)
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return { form: "6to4", address: ipv4Text(bytes, 2) };
  return null;
}

function ipv4Text(bytes: Uint8Array, offset: number): string {
  return Array.from(bytes.subarray(offset, offset + 4)).join(".");
}

/**
 * Parses IPv6 text into its 16 bytes. Returns null for anything `net.isIPv6` would not accept
 * without a zone; a zone (`%eth0`) is refused because only link-local scopes carry one.
 */
function parseIpv6(address: string): Uint8Array | null {
  if (address.includes("%") || !isIPv6(address)) return null;

  let text = address;
  const bytes = new Uint8Array(16);
  const lastColon = text.lastIndexOf(":");
  const dottedTail = text.slice(lastColon + 1);
  let tailBytes: number[] = [];
  if (dottedTail.includes(".")) {
    tailBytes = dottedTail.split(".").map(Number);
    // Keep the trailing colon so that "::1.2.3.4" still splits around "::".
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }

  const [headText, tailText] = text.includes("::") ? text.split("::") : [text, undefined];
  const groups = (part: string | undefined) =>
    part ? part.split(":").map((group) => Number.parseInt(group, 16)) : [];
  const head = groups(headText);
  const rest = groups(tailText);
  const all =
    tailText === undefined
      ? head
      : [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
  if (all.length !== 8) return null;

  all.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  if (tailBytes.length === 4) bytes.set(tailBytes, 12);
  return bytes;
}
