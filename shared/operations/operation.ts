import type { z } from "zod";
import type { SiteAuditor } from "../audit/auditor.ts";
import type { Principal } from "../auth.ts";
import type { CostGuard, CostKind } from "../cost-guard.ts";
import type { Db } from "../db/database.ts";
import type { DraftGenerator } from "../drafting/generator.ts";
import { ApiError, type ErrorCode } from "../errors.ts";
import type { OperationLogger } from "../logger.ts";
import type { DraftMetrics, SearchMetrics } from "../metrics.ts";
import type { PlacesProvider } from "../places/types.ts";
import { consumeOrThrow, type RateLimitBucket, type RateLimiter } from "../rate-limits.ts";
import { requireWorkspace } from "../workspaces/workspaces.ts";

/**
 * One workspace operation, declared once: `/v1` routes and MCP tools are registered from it and
 * console pages call it, so a request costs, counts and logs the same through any door. A door
 * adds only its wire format (JSON, MCP content, HTML).
 */
export interface Operation<Input extends z.ZodObject = z.ZodObject, Output extends z.ZodType = z.ZodType> {
  name: string;
  input: Input;
  /** The answer's wire shape (the /v1 response body, the MCP tool's JSON). */
  output: Output;
  /** The spec's codes it can answer beyond those every door can (401, 403, 429, 500, 503). */
  errors: readonly ErrorCode[];
  /** The per-minute rate-limit bucket one call spends. */
  bucket: RateLimitBucket;
  cost: CostRule<z.output<Output>>;
  /** Exposed as an MCP tool when set. */
  mcp?: McpToolDeclaration;
  /** Fields of a successful answer its log line carries (a search: whether it was truncated). */
  logged?(output: z.output<Output>): Record<string, unknown>;
  run(caller: Caller, input: z.output<Input>): Promise<z.output<Output>>;
}

interface CostRule<Output> {
  /** The credits a successful answer charged (0 for reads), for the operation's log line. */
  credits(output: Output): number;
  /** One unit of this hourly cost limit is spent before the work starts (429 once spent). */
  perAttempt?: CostKind;
}

/** The MCP tool of an operation: its name and the words an assistant reads to choose it. */
interface McpToolDeclaration {
  name: string;
  title: string;
  description: string;
  /** Every hint stated, true of the operation (connector directories ask for all four). */
  annotations: McpToolAnnotations;
}

export interface McpToolAnnotations {
  /** Changes nothing in the workspace. */
  readOnlyHint: boolean;
  /**
   * Makes changes that are not purely additive. Spending credits is: the balance a call spends
   * cannot be given back by any tool, so a host that confirms destructive calls confirms these.
   */
  destructiveHint: boolean;
  /** Calling again with the same arguments has no further effect (and costs nothing more). */
  idempotentHint: boolean;
  /** Reaches outside the workspace's own data (places provider, websites, a language model). */
  openWorldHint: boolean;
}

/** The hints of a tool that only reads the workspace's own data. */
export const READ_ONLY_TOOL: McpToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** What operations run on: built once per process (the API's `Services` is one). */
export interface OperationServices {
  config: { searchCheckBudgetMs: number; searchMatchGraceMs: number; suppressionsPerWorkspace: number };
  db: Db;
  rateLimiter: RateLimiter;
  /** Console members' own per-minute budget (a person's clicks are not a script's calls). */
  consoleRateLimiter: RateLimiter;
  costGuard: CostGuard;
  places: PlacesProvider | undefined;
  auditor: SiteAuditor;
  draftGenerator: DraftGenerator;
  metrics: SearchMetrics & DraftMetrics;
}

/** Who calls (an API key, an OAuth grant or a console member), with the door's logger and abort signal. */
export interface Caller {
  principal: Principal;
  logger: OperationLogger;
  /** Aborted when the door's client gives up (an MCP cancellation); absent when the work should finish. */
  signal?: AbortSignal | undefined;
  services: OperationServices;
}

declare const admitted: unique symbol;
/** Proof that the call spent its rate-limit bucket: only `admit` makes one. */
export interface Admission {
  readonly [admitted]: true;
  /** `RateLimit-*` headers of the decision (/v1 sends them). */
  headers: Record<string, string>;
}

/** Declares an operation (a typed identity: the declaration is the value). */
export const defineOperation = <Input extends z.ZodObject, Output extends z.ZodType>(
  operation: Operation<Input, Output>,
): Operation<Input, Output> => operation;

/**
 * The first step of every door: one request of the operation's bucket for the principal's
 * rate-limit identity, or 429 / 503. `/v1` admits in `onRequest`, so a request over its limit is
 * refused before its body is read; MCP tools and console pages admit just before `perform`.
 */
export async function admit(
  operation: Operation,
  principal: Principal,
  limiter: RateLimiter,
): Promise<Admission> {
  const headers = await consumeOrThrow(limiter, operation.bucket, principal.rateLimitId);
  return { headers } as Admission;
}

/**
 * The rest of the operation path, the same for every door: the input checked against the
 * declaration, the hourly cost limit of an attempt, the work, and one log line with the outcome.
 */
export async function perform<Input extends z.ZodObject, Output extends z.ZodType>(
  operation: Operation<Input, Output>,
  caller: Caller,
  _admission: Admission,
  input: z.input<Input>,
): Promise<z.output<Output>> {
  const started = performance.now();
  const fields = {
    operation: operation.name,
    workspace_id: caller.principal.workspaceId,
    principal: caller.principal.kind,
  };
  try {
    const parsed = operation.input.safeParse(input);
    if (!parsed.success) throw new ApiError("invalid_request", describeIssues(parsed.error.issues));
    const { perAttempt } = operation.cost;
    if (perAttempt) {
      const { costGuard, db } = caller.services;
      await costGuard.spendOrThrow(await requireWorkspace(db, caller.principal.workspaceId), perAttempt);
    }
    const output = await operation.run(caller, parsed.data);
    caller.logger.info(
      {
        ...fields,
        outcome: "ok",
        ...operation.logged?.(output),
        credits_spent: operation.cost.credits(output),
        duration_ms: Math.round(performance.now() - started),
      },
      "operation finished",
    );
    return output;
  } catch (error) {
    // No credits field: a failure charges nothing, except a 500 after a search's save committed.
    const code = error instanceof ApiError ? error.code : "internal_error";
    caller.logger.info(
      { ...fields, outcome: code, duration_ms: Math.round(performance.now() - started) },
      "operation finished",
    );
    throw error;
  }
}

/** `admit` then `perform`: the whole path, for doors that parse their input before admitting. */
export async function invoke<Input extends z.ZodObject, Output extends z.ZodType>(
  operation: Operation<Input, Output>,
  caller: Caller,
  input: z.input<Input>,
): Promise<z.output<Output>> {
  const { principal, services } = caller;
  const limiter = principal.kind === "console_member" ? services.consoleRateLimiter : services.rateLimiter;
  const admission = await admit(operation, principal, limiter);
  return perform(operation, caller, admission, input);
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => `${issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}${issue.message}`)
    .join("; ");
}
