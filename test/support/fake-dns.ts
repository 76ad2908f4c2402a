/**
 * A real DNS server on 127.0.0.1 (UDP, a random port; dns2 encodes the packets) that answers
 * from a zone the test programs, and records every question. The service reaches it through
 * `DNS_SERVERS=127.0.0.1:<port>`, as it would reach any resolver.
 */
import type { AddressInfo } from "node:net";
import { createUDPServer, Packet, type Resource } from "dns2";

type RecordType = "A" | "AAAA" | "MX";

/** What one name answers. Anything not listed answers NXDOMAIN. */
export interface FakeDnsName {
  A?: string[];
  AAAA?: string[];
  /** `exchange: ""` with priority 0 is a null MX (RFC 7505). */
  MX?: Array<{ exchange: string; priority: number }>;
  /** These types never get an answer (the client's timeout has to end the query). */
  hang?: RecordType[];
  /** These types answer SERVFAIL. */
  servfail?: RecordType[];
}

export interface FakeDnsServer {
  /** `127.0.0.1:<port>`, as DNS_SERVERS takes it. */
  readonly address: string;
  /** Every question received, in order. */
  readonly questions: Array<{ name: string; type: RecordType | string }>;
  /** Questions about this name (and type) received so far. */
  count(name: string, type?: RecordType): number;
  setZone(zone: Record<string, FakeDnsName>): void;
  close(): Promise<void>;
}

/** Response codes (RFC 1035 §4.1.1); dns2 has them at run time but its types leave them out. */
const RCODE = { SERVFAIL: 2, NXDOMAIN: 3 } as const;

const TYPE_NAMES = new Map<number, string>(
  Object.entries(Packet.TYPE).map(([name, code]) => [code as number, name]),
);

export async function startFakeDns(initialZone: Record<string, FakeDnsName> = {}): Promise<FakeDnsServer> {
  let zone = normaliseZone(initialZone);
  const questions: Array<{ name: string; type: string }> = [];

  const server = createUDPServer((request, send) => {
    const [question] = request.questions;
    if (question === undefined) return;
    const name = question.name.toLowerCase().replace(/\.$/, "");
    const type = TYPE_NAMES.get(question.type) ?? String(question.type);
    questions.push({ name, type });
    const entry = zone.get(name);
    const response = Packet.createResponseFromRequest(request);
    if (entry?.hang?.includes(type as RecordType)) return;
    if (entry === undefined) {
      response.header.rcode = RCODE.NXDOMAIN;
    } else if (entry.servfail?.includes(type as RecordType)) {
      response.header.rcode = RCODE.SERVFAIL;
    } else if (type === "A") {
      for (const address of entry.A ?? []) response.answers.push(resource(name, Packet.TYPE.A, { address }));
    } else if (type === "AAAA") {
      for (const address of entry.AAAA ?? [])
        response.answers.push(resource(name, Packet.TYPE.AAAA, { address }));
    } else if (type === "MX") {
      for (const { exchange, priority } of entry.MX ?? []) {
        response.answers.push(resource(name, Packet.TYPE.MX, { exchange, priority }));
      }
    }
    // A name that exists without records of the type asked answers NOERROR with no answer (NODATA).
    void send(response);
  });
  await server.listen(0, "127.0.0.1");
  const { port } = server.address() as AddressInfo;

  return {
    address: `127.0.0.1:${port}`,
    questions,
    count: (name, type) =>
      questions.filter(
        (question) => question.name === name.toLowerCase() && (type === undefined || question.type === type),
      ).length,
    setZone(next) {
      zone = normaliseZone(next);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function normaliseZone(zone: Record<string, FakeDnsName>): Map<string, FakeDnsName> {
  return new Map(Object.entries(zone).map(([name, entry]) => [name.toLowerCase(), entry]));
}

function resource(name: string, type: number, data: Record<string, unknown>): Resource {
  return { name, type, class: Packet.CLASS.IN, ttl: 300, ...data } as Resource;
}
