import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSiblingApp, startTestApp, type TestApp } from "../../support/app.ts";

let t: TestApp;
let folder: string;

beforeAll(async () => {
  t = await startTestApp();
  folder = await mkdtemp(path.join(tmpdir(), "legal-pages-"));
});
afterAll(async () => {
  await t?.close();
  await rm(folder, { recursive: true, force: true });
});

describe("the privacy policy and terms pages", () => {
  it.each(["/privacy", "/terms"])("%s is a public HTML page with the console's safe headers", async (url) => {
    const response = await t.app.inject({ url });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/html/);
    expect(response.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(response.headers["x-frame-options"]).toBe("DENY");
  });

  it("says by default what the service keeps and sends, in the visitor's language", async () => {
    const privacy = (await t.app.inject({ url: "/privacy" })).body;
    expect(privacy).toContain("<h1>Privacy policy</h1>");
    expect(privacy).toContain("scrypt");
    expect(privacy).toContain("places provider");
    const terms = (await t.app.inject({ url: "/terms" })).body;
    expect(terms).toContain("<h1>Terms of service</h1>");
    expect(terms).toContain("never sends email");
    const french = await t.app.inject({ url: "/privacy", headers: { "accept-language": "fr-CA,fr;q=0.9" } });
    expect(french.body).toContain('<html lang="fr">');
    expect(french.body).toContain("Politique de confidentialité");
    expect(french.body).toContain("scrypt");
  });

  it("serves the operator's own pages and contact when configured", async () => {
    const privacyFile = path.join(folder, "privacy.html");
    const termsFile = path.join(folder, "terms.html");
    await writeFile(privacyFile, "<p>Acme Leads Inc. keeps <strong>only</strong> what it needs.</p>");
    await writeFile(termsFile, "<p>Acme's terms: be nice.</p>");
    const sibling = await startSiblingApp(t.database.db, {
      PRIVACY_POLICY_FILE: privacyFile,
      TERMS_OF_SERVICE_FILE: termsFile,
      OPERATOR_CONTACT_EMAIL: "privacy@acme.example",
    });
    try {
      const privacy = (await sibling.app.inject({ url: "/privacy" })).body;
      expect(privacy).toContain("<p>Acme Leads Inc. keeps <strong>only</strong> what it needs.</p>");
      expect(privacy).not.toContain("scrypt");
      expect((await sibling.app.inject({ url: "/terms" })).body).toContain("<p>Acme's terms: be nice.</p>");
      const openapi = (await sibling.app.inject({ url: "/openapi.json" })).json();
      expect(openapi.info.contact).toMatchObject({ email: "privacy@acme.example" });
    } finally {
      await sibling.close();
    }
    const withContact = await startSiblingApp(t.database.db, {
      OPERATOR_CONTACT_EMAIL: "ops@agency.example",
    });
    try {
      for (const url of ["/privacy", "/terms"]) {
        expect((await withContact.app.inject({ url })).body).toContain('href="mailto:ops@agency.example"');
      }
    } finally {
      await withContact.close();
    }
  });

  it("refuses to start with a page file it cannot read, naming the variable", async () => {
    await expect(
      startSiblingApp(t.database.db, { TERMS_OF_SERVICE_FILE: path.join(folder, "missing.html") }),
    ).rejects.toThrow(/TERMS_OF_SERVICE_FILE: cannot read/);
  });

  it("is linked from the OAuth metadata, the OpenAPI document and every console page", async () => {
    const metadata = (await t.app.inject({ url: "/.well-known/oauth-authorization-server" })).json();
    expect(metadata.op_policy_uri).toBe(`${t.config.publicUrl}/privacy`);
    expect(metadata.op_tos_uri).toBe(`${t.config.publicUrl}/terms`);
    for (const uri of [metadata.op_policy_uri, metadata.op_tos_uri]) {
      expect((await t.app.inject({ url: new URL(uri).pathname })).statusCode).toBe(200);
    }
    const openapi = (await t.app.inject({ url: "/openapi.json" })).json();
    expect(openapi.info.termsOfService).toBe(`${t.config.publicUrl}/terms`);
    expect(openapi.info.contact.url).toBe(`${t.config.publicUrl}/terms`);
    const signIn = (await t.app.inject({ url: "/app/sign-in" })).body;
    expect(signIn).toMatch(/<footer[^>]*>.*href="\/privacy".*href="\/terms".*<\/footer>/s);
  });
});
