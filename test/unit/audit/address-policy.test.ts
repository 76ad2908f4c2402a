import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AddressCategory,
  classifyAddress,
  isAllowedAddress,
  isPublicAddress,
} from "../../../shared/audit/address-policy.ts";

const cases: ReadonlyArray<readonly [address: string, category: AddressCategory]> = [
  // Public
  ["8.8.8.8", "public"],
  ["93.184.216.34", "public"],
  ["1.1.1.1", "public"],
  ["172.15.255.255", "public"],
  ["172.32.0.0", "public"],
  ["100.63.255.255", "public"],
  ["100.128.0.0", "public"],
  ["2606:4700:4700::1111", "public"],
  ["2001:4860:4860::8888", "public"],
  ["::ffff:8.8.8.8", "public"],
  ["64:ff9b::808:808", "public"],
  ["2002:808:808::1", "public"],
  // IPv4
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["10.0.0.5", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["169.254.169.254", "link_local"],
  ["169.254.0.1", "link_local"],
  ["100.64.0.1", "cgnat"],
  ["100.100.100.200", "cgnat"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["255.255.255.255", "broadcast"],
  ["240.0.0.1", "reserved"],
  ["192.0.0.192", "reserved"],
  ["192.88.99.1", "reserved"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["192.0.2.10", "documentation"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.99", "documentation"],
  // IPv6
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["fc00::1", "private"],
  ["fd00:ec2::254", "private"],
  ["fec0::1", "private"],
  ["fe80::1", "link_local"],
  ["febf:ffff::1", "link_local"],
  ["ff02::1", "multicast"],
  ["ff0e::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["2001:2::1", "benchmarking"],
  ["2001::1", "reserved"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"],
  ["100::1", "reserved"],
  ["5f00::1", "reserved"],
  ["64:ff9b:1::a00:5", "private"],
  // IPv4 reached through IPv6
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["0:0:0:0:0:ffff:7f00:1", "loopback"],
  ["::ffff:10.0.0.5", "private"],
  ["::ffff:a9fe:a9fe", "link_local"],
  ["::ffff:0:7f00:1", "loopback"],
  ["::127.0.0.1", "loopback"],
  ["::7f00:1", "loopback"],
  ["::a00:5", "private"],
  ["::8.8.8.8", "reserved"],
  ["64:ff9b::127.0.0.1", "loopback"],
  ["64:ff9b::a9fe:a9fe", "link_local"],
  ["2002:a00:5::1", "private"],
  ["2002:7f00:1::1", "loopback"],
  ["2002:a9fe:a9fe::", "link_local"],
  // Not addresses
  ["", "invalid"],
  ["localhost", "invalid"],
  ["127.1", "invalid"],
  ["[::1]", "invalid"],
  ["fe80::1%eth0", "invalid"],
  ["999.1.1.1", "invalid"],
];

describe("classifyAddress", () => {
  it.each(cases)("%s is %s", (address, category) => {
    expect(classifyAddress(address)).toBe(category);
    expect(isPublicAddress(address)).toBe(category === "public");
  });
});

const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = fc.tuple(octet, octet, octet, octet);
const dotted = (parts: readonly number[]) => parts.join(".");
const hex16 = (high: number, low: number) => ((high << 8) | low).toString(16);
const hextet = fc.integer({ min: 0, max: 0xffff }).map((value) => value.toString(16));

describe("classifyAddress properties", () => {
  it("refuses every address in 10.0.0.0/8 as private", () => {
    fc.assert(
      fc.property(octet, octet, octet, (b, c, d) => {
        expect(classifyAddress(dotted([10, b, c, d]))).toBe("private");
      }),
    );
  });

  it("refuses every address in 127.0.0.0/8 and 169.254.0.0/16", () => {
    fc.assert(
      fc.property(octet, octet, octet, (b, c, d) => {
        expect(classifyAddress(dotted([127, b, c, d]))).toBe("loopback");
        expect(classifyAddress(dotted([169, 254, c, d]))).toBe("link_local");
      }),
    );
  });

  it("refuses every address in 172.16.0.0/12 and 100.64.0.0/10", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 16, max: 31 }),
        fc.integer({ min: 64, max: 127 }),
        octet,
        octet,
        (b, cgnatB, c, d) => {
          expect(classifyAddress(dotted([172, b, c, d]))).toBe("private");
          expect(classifyAddress(dotted([100, cgnatB, c, d]))).toBe("cgnat");
        },
      ),
    );
  });

  it("judges an IPv4-mapped or NAT64 IPv6 address exactly as its IPv4 address", () => {
    fc.assert(
      fc.property(ipv4, ([a, b, c, d]) => {
        const expected = classifyAddress(dotted([a, b, c, d]));
        expect(classifyAddress(`::ffff:${dotted([a, b, c, d])}`)).toBe(expected);
        expect(classifyAddress(`::ffff:${hex16(a, b)}:${hex16(c, d)}`)).toBe(expected);
        expect(classifyAddress(`64:ff9b::${hex16(a, b)}:${hex16(c, d)}`)).toBe(expected);
      }),
    );
  });

  it("refuses the 6to4 form of every private IPv4 address", () => {
    fc.assert(
      fc.property(octet, octet, octet, hextet, (b, c, d, subnet) => {
        expect(classifyAddress(`2002:${hex16(10, b)}:${hex16(c, d)}:${subnet}::1`)).toBe("private");
        expect(classifyAddress(`2002:${hex16(192, 168)}:${hex16(c, d)}::`)).toBe("private");
      }),
    );
  });

  it("refuses every unique-local and link-local IPv6 address", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0xfc00, max: 0xfdff }),
        fc.integer({ min: 0xfe80, max: 0xfebf }),
        hextet,
        (ula, linkLocal, rest) => {
          expect(classifyAddress(`${ula.toString(16)}:${rest}::1`)).toBe("private");
          expect(classifyAddress(`${linkLocal.toString(16)}::${rest}`)).toBe("link_local");
        },
      ),
    );
  });

  it("refuses everything outside the global unicast range 2000::/3 that is not an IPv4 form", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0x4000, max: 0xfbff }), hextet, (first, rest) => {
        expect(isPublicAddress(`${first.toString(16)}:${rest}::1`)).toBe(false);
      }),
    );
  });
});

describe("isAllowedAddress", () => {
  it("allows only public addresses by default", () => {
    const policy = { allowPrivateNetworks: false };
    expect(isAllowedAddress("93.184.216.34", policy)).toBe(true);
    expect(isAllowedAddress("2606:4700:4700::1111", policy)).toBe(true);
    for (const refused of [
      "127.0.0.1",
      "::1",
      "10.0.0.5",
      "169.254.169.254",
      "100.64.0.1",
      "fd00::1",
      "fe80::1",
    ]) {
      expect(isAllowedAddress(refused, policy), refused).toBe(false);
    }
  });

  it("lets local networks through when private networks are allowed, but never non-unicast addresses", () => {
    const policy = { allowPrivateNetworks: true };
    for (const allowed of [
      "127.0.0.1",
      "::1",
      "::ffff:127.0.0.1",
      "10.0.0.5",
      "192.168.1.1",
      "fd00::1",
      "169.254.1.1",
    ]) {
      expect(isAllowedAddress(allowed, policy), allowed).toBe(true);
    }
    for (const refused of [
      "0.0.0.0",
      "::",
      "224.0.0.1",
      "ff02::1",
      "255.255.255.255",
      "240.0.0.1",
      "192.0.2.1",
      "x",
    ]) {
      expect(isAllowedAddress(refused, policy), refused).toBe(false);
    }
  });
});
