import { createSocket } from "node:dgram";
import type { AddressInfo } from "node:net";

/**
 * A DNS server on 127.0.0.1 (UDP), for `DNS_SERVERS`: the names given resolve (A records) to their
 * IPv4 addresses, with no AAAA record; every other name is NXDOMAIN ("no such domain"). Records
 * every name asked, so a test can tell that a name was never looked up.
 */
export interface LoopbackDns {
  /** `127.0.0.1:port`, as DNS_SERVERS takes it. */
  readonly server: string;
  /** Every name asked, lower-cased, in order (A and AAAA each count). */
  readonly asked: readonly string[];
  close(): Promise<void>;
}

const TYPE_A = 1;
const RCODE_NXDOMAIN = 3;

export async function startLoopbackDns(names: Record<string, string>): Promise<LoopbackDns> {
  const table = new Map(Object.entries(names).map(([name, address]) => [name.toLowerCase(), address]));
  const asked: string[] = [];
  const socket = createSocket("udp4");
  socket.on("message", (query, peer) => {
    const question = readQuestion(query);
    if (question === null) return;
    asked.push(question.name);
    const address = table.get(question.name);
    const answers = address !== undefined && question.type === TYPE_A ? [address] : [];
    const rcode = address === undefined ? RCODE_NXDOMAIN : 0;
    socket.send(answer(query, question.end, answers, rcode), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    server: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    asked,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** The first question's name and type, and where it ends; null for a message too short to read. */
function readQuestion(message: Buffer): { name: string; type: number; end: number } | null {
  const labels: string[] = [];
  let offset = 12;
  while (offset < message.length) {
    const length = message[offset] ?? 0;
    offset += 1;
    if (length === 0) break;
    labels.push(message.toString("latin1", offset, offset + length));
    offset += length;
  }
  if (offset + 4 > message.length) return null;
  return { name: labels.join(".").toLowerCase(), type: message.readUInt16BE(offset), end: offset + 4 };
}

function answer(query: Buffer, questionEnd: number, addresses: string[], rcode: number): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  const recursionDesired = (query[2] ?? 0) & 0x01;
  header[2] = 0x84 | recursionDesired; // QR, AA, RD as asked
  header[3] = 0x80 | rcode; // RA, rcode
  header.writeUInt16BE(1, 4); // one question
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0); // the question's name
    record.writeUInt16BE(TYPE_A, 2);
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(60, 6); // TTL
    record.writeUInt16BE(4, 10);
    address.split(".").forEach((part, index) => {
      record[12 + index] = Number(part);
    });
    return record;
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
}
