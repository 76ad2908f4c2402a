// The console's lead page reads once (issue 27 item 4): the lead, its flags and the evidence
// behind them come from one read of its audit, the page's operation's answer; before, the page ran
// the wire operation, then read the audit and the place again for the evidence. Counted here with a
// Kysely plugin that sees every statement the app sends.
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveAudit } from "../../../shared/audit/cache.ts";
import { createWorkspace, type SiblingApp, startSiblingApp } from "../../support/app.ts";
import { signedUpMember } from "../../support/console.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { RICH_EVIDENCE, RICH_SIGNALS } from "../../support/drafting.ts";
import { seedLeads } from "../../support/seed.ts";

/** Every statement sent, as its syntax tree in JSON (enough to tell which tables it names). */
class StatementLog implements KyselyPlugin {
  readonly statements: string[] = [];
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    this.statements.push(
      JSON.stringify(node, (_key, value) => (typeof value === "bigint" ? String(value) : value)),
    );
    return node;
  }
  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
  naming(table: string): number {
    return this.statements.filter((statement) => statement.includes(`"${table}"`)).length;
  }
}

const log = new StatementLog();
let database: TestDatabase;
let sibling: SiblingApp;
beforeAll(async () => {
  database = await createTestDatabase();
  sibling = await startSiblingApp(database.db.withPlugin(log));
});
afterAll(async () => {
  await sibling?.close();
  await database?.close();
});

describe("the console's lead page", () => {
  it("reads the lead's audit once, for its flags and their evidence alike", async () => {
    const workspace = await createWorkspace(sibling.app, { name: "Reads Agency" });
    const [leadId] = await seedLeads(database.db, workspace.workspaceId, [
      { place_id: "reads-1", name: "Reads One", website: "https://reads-1.ca/" },
    ]);
    await saveAudit(database.db, {
      place_id: "reads-1",
      url: "https://reads-1.ca/",
      outcome: "ok",
      failure: null,
      signals: { ...RICH_SIGNALS, email: "info@reads-1.ca" },
      evidence: RICH_EVIDENCE,
      audited_at: new Date(),
    });
    const browser = await signedUpMember(sibling.app, workspace.workspaceId, "reads@agency.test");

    log.statements.length = 0;
    const page = await browser.get(`/app/w/${workspace.workspaceId}/leads/${leadId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("Reads One");
    expect(page.body).toContain("info@reads-1.ca");
    // Observed, not asserted: every statement of the page (session, membership, lead, drafts...).
    console.info(
      `lead page: ${log.statements.length} statements, ${log.naming("site_audits")} naming site_audits`,
    );
    expect(log.naming("site_audits")).toBe(1);
    expect(log.naming("places")).toBe(1);
  });
});
