import { isIP } from "node:net";

/**
 * The key a per-address limit counts a client under: an IPv4 address as it is; an IPv6 address by
 * its /64, the smallest block a provider hands one customer (one home or one server gets a whole
 * /64, so counting each address alone gave one client 2^64 allowances); an IPv4-mapped IPv6
 * address (`::ffff:192.0.2.1`) as its IPv4 address. Anything else (no address) as it is.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (isIP(address) !== 6) return address;
  return `${expandIpv6(address).slice(0, 4).join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, as lower-case hex without leading zeros. */
function expandIpv6(address: string): string[] {
  const [head = "", tail] = address.toLowerCase().split("%")[0]?.split("::") ?? [""];
  const groupsOf = (part: string | undefined): string[] => {
    if (!part) return [];
    return part.split(":").flatMap((group) => {
      // An embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) is two groups.
      if (group.includes(".")) {
        const [a = 0, b = 0, c = 0, d = 0] = group.split(".").map(Number);
        return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
      }
      return [Number.parseInt(group, 16).toString(16)];
    });
  };
  const first = groupsOf(head);
  const last = groupsOf(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - first.length - last.length).fill("0");
  return [...first, ...zeros, ...last];
}
