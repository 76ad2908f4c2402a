/**
 * Every email_status the console shows has its reason beside it (issue 33 item 4): the reason the
 * DNS check kept (shared/audit/email-status.ts) in words, with the address's domain, in English
 * and in French; an audit made before reasons were kept says what the status may mean; the
 * warning before drafting to an undeliverable address gives the same reason.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveAudit } from "../../../shared/audit/cache.ts";
import type { EmailStatus, EmailStatusReason } from "../../../shared/audit/types.ts";
import { UNKNOWN_SIGNALS } from "../../../shared/audit/types.ts";
import { createWorkspace, startTestApp, type TestApp, type TestWorkspace } from "../../support/app.ts";
import { type ConsoleBrowser, signedUpMember } from "../../support/console.ts";
import { seedLeads } from "../../support/seed.ts";

let t: TestApp;
let workspace: TestWorkspace;
let browser: ConsoleBrowser;
const ids = new Map<string, string>();

/** name -> the address, its status and the reason kept (undefined: an audit from before reasons). */
const ADDRESSES: Record<string, [string, EmailStatus, EmailStatusReason | undefined]> = {
  "Own Domain Plumbing": ["info@own-domain.ca", "deliverable", "own_domain"],
  "Webmail Roofing": ["roofing.pro@gmail.com", "risky", "free_mail"],
  "Other Domain Glass": ["office@glass-group.ca", "risky", "other_domain"],
  "Demo Bakery": ["hello@demo-bakery.example", "undeliverable", "not_public"],
  "Gone Domain Paint": ["info@gone-paint.ca", "undeliverable", "no_domain"],
  "Null Mx Tiles": ["info@null-tiles.ca", "undeliverable", "null_mx"],
  "No Mail Fences": ["info@no-mail-fences.ca", "undeliverable", "no_mail"],
  "Throwaway Movers": ["movers@mailinator.com", "undeliverable", "disposable"],
  "Silent Dns Doors": ["info@silent-doors.ca", "unknown", "dns_failed"],
  "Older Audit Locks": ["info@older-locks.ca", "undeliverable", undefined],
};

beforeAll(async () => {
  t = await startTestApp();
  workspace = await createWorkspace(t.app, { name: "Mail check agency" });
  const names = Object.keys(ADDRESSES);
  const leadIds = await seedLeads(
    t.database.db,
    workspace.workspaceId,
    names.map((name, index) => ({ place_id: `mail-reason-${index}`, name, country: "CA" })),
  );
  for (const [index, name] of names.entries()) {
    ids.set(name, leadIds[index] ?? "");
    const [email, status, reason] = ADDRESSES[name] ?? ["", "unknown", undefined];
    await saveAudit(t.database.db, {
      place_id: `mail-reason-${index}`,
      url: `https://mail-reason-${index}.example`,
      outcome: "ok",
      failure: null,
      signals: { ...UNKNOWN_SIGNALS, email, email_status: status },
      evidence: {
        email_page_url: `https://mail-reason-${index}.example`,
        ...(reason ? { email_status_reason: reason } : {}),
      },
      audited_at: new Date(),
    });
  }
  const keys = await t.app.inject({
    url: `/admin/workspaces/${workspace.workspaceId}/api-keys`,
    headers: { authorization: "Bearer test-admin-token-0123456789" },
  });
  const email = (keys.json() as { api_keys: { created_by_email: string }[] }).api_keys[0]!.created_by_email;
  browser = await signedUpMember(t.app, workspace.workspaceId, email, "Mail Member");
});
afterAll(async () => {
  await t?.close();
});

/** The lead page's status and reason, as text. */
async function statusLine(name: string): Promise<{ status: string; reason: string; warnings: string }> {
  const body = (await browser.get(`/app/w/${workspace.workspaceId}/leads/${ids.get(name)}`)).body;
  const text = (id: string) =>
    (new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</(?:span|div)>`).exec(body)?.[1] ?? "")
      .replace(/<[^>]+>/g, " ")
      .replace(/&#39;/g, "'")
      .replace(/\s+/g, " ")
      .trim();
  return {
    status: text("email-status"),
    reason: text("email-status-reason"),
    warnings: text("draft-warnings"),
  };
}

describe("email_status and its reason on the lead page", () => {
  it("says why, for every status and reason, in English", async () => {
    const expected: Record<string, [string, string]> = {
      "Own Domain Plumbing": [
        "deliverable",
        "own-domain.ca has a mail server, and it is the website's own domain.",
      ],
      "Webmail Roofing": ["risky", "gmail.com is a free webmail"],
      "Other Domain Glass": ["risky", "glass-group.ca is another domain than the website's"],
      "Demo Bakery": ["undeliverable", "demo-bakery.example is not a domain of the public internet"],
      "Gone Domain Paint": ["undeliverable", "The domain gone-paint.ca does not exist."],
      "Null Mx Tiles": [
        "undeliverable",
        "null-tiles.ca declares that it accepts no mail (a null MX record).",
      ],
      "No Mail Fences": ["undeliverable", "No mail server for no-mail-fences.ca"],
      "Throwaway Movers": ["undeliverable", "mailinator.com is a disposable-mail service"],
      "Silent Dns Doors": ["unknown", "DNS did not answer for silent-doors.ca in time"],
      "Older Audit Locks": [
        "undeliverable",
        "No mail server for the domain, or a disposable or reserved domain",
      ],
    };
    for (const [name, [status, reason]] of Object.entries(expected)) {
      const shown = await statusLine(name);
      expect(shown.status, name).toBe(status);
      expect(shown.reason, name).toContain(reason);
    }
    // The warning before drafting names the same reason.
    const demo = await statusLine("Demo Bakery");
    expect(demo.warnings).toContain("hello@demo-bakery.example cannot receive mail");
    expect(demo.warnings).toContain("like the demo's .example addresses");
  });

  it("says why in French", async () => {
    await browser.submit("/app/account", "/app/account/profile", { name: "Mail Member", language: "fr" });
    const demo = await statusLine("Demo Bakery");
    expect(demo.status).toBe("non livrable");
    expect(demo.reason).toContain("demo-bakery.example n'est pas un domaine de l'internet public");
    expect(demo.warnings).toContain("comme les adresses .example de la démo");
    expect((await statusLine("Webmail Roofing")).reason).toContain("gmail.com est une messagerie gratuite");
    expect((await statusLine("Silent Dns Doors")).reason).toContain(
      "Le DNS n'a pas répondu à temps pour silent-doors.ca",
    );
  });
});
