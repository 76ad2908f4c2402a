import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** A key and a certificate, PEM. */
interface KeyAndCertificate {
  key: string;
  cert: string;
}

export interface TestCertificates {
  /** A certificate authority made for this test run only; its PEM file is what AUDIT_CA_FILE names. */
  caFile: string;
  /** Signed by the test CA for `localhost`: trusted by a fetcher given the CA. */
  localhost: KeyAndCertificate;
  /** Signed by the test CA for `localhost`, expired yesterday. */
  expired: KeyAndCertificate;
  /** Signed by the test CA for another host name (`elsewhere.test`). */
  wrongHost: KeyAndCertificate;
  /** Self-signed for `localhost`. */
  selfSigned: KeyAndCertificate;
  /** Removes the files. */
  remove(): void;
}

/**
 * Certificates made at test time with the openssl command line (EC P-256): a test CA and leaves
 * for the https cases of the audit (a good site, an expired, a wrong-host and a self-signed
 * certificate). Nothing is kept between runs, and no private key lives in the repository.
 */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(tmpdir(), "audit-certs-"));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

  openssl(
    "req",
    "-x509",
    ...newKey,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=Lead API audit test CA",
  );
  const leaf = (name: string, host: string, days: string): KeyAndCertificate => {
    openssl("req", ...newKey, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${host}`);
    writeFileSync(file(`${name}.ext`), `subjectAltName=DNS:${host}\n`);
    openssl(
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      days,
      "-extfile",
      `${name}.ext`,
      "-out",
      `${name}.pem`,
    );
    return {
      key: readFileSync(file(`${name}.key`), "utf8"),
      cert: readFileSync(file(`${name}.pem`), "utf8"),
    };
  };
  const localhost = leaf("localhost", "localhost", "2");
  const expired = leaf("expired", "localhost", "-1");
  const wrongHost = leaf("wrong-host", "elsewhere.test", "2");
  openssl(
    "req",
    "-x509",
    ...newKey,
    "-keyout",
    "self.key",
    "-out",
    "self.pem",
    "-days",
    "2",
    "-subj",
    "/CN=localhost",
    "-addext",
    "subjectAltName=DNS:localhost",
  );
  const selfSigned = {
    key: readFileSync(file("self.key"), "utf8"),
    cert: readFileSync(file("self.pem"), "utf8"),
  };
  return {
    caFile: file("ca.pem"),
    localhost,
    expired,
    wrongHost,
    selfSigned,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
