import { z } from "zod";
import { leadsCsv } from "../console/workspace-views.ts";
import { defineOperation } from "./operation.ts";

const isTextStream = (value: unknown): value is AsyncIterable<string> =>
  typeof value === "object" && value !== null && Symbol.asyncIterator in value;

/**
 * The console's CSV export of every lead (DESIGN.md: an operation of the console, like marking a
 * lead or suppressing one): the read bucket and one log line, as the other doors' reads. Console-
 * only: the spec has no /v1 route or MCP tool for it. The answer is the file's lines, read from the
 * database page by page as the door sends them, so a long list is never held whole.
 */
export const exportLeadsOperation = defineOperation({
  name: "export_leads",
  input: z.object({}),
  output: z.custom<AsyncIterable<string>>(isTextStream),
  errors: [],
  bucket: "read",
  cost: { credits: () => 0 },
  async run({ principal, services }) {
    return leadsCsv(services.db, principal.workspaceId);
  },
});
