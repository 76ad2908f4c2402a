import { ApiError } from "./errors.ts";
import {
  createLimiter,
  type Limiter,
  type LimiterStore,
  RETRY_AFTER_SECONDS,
  rateLimitUnavailable,
} from "./rate-limits.ts";

/**
 * Work the spec does not charge but the operator pays for: places-provider pages, live homepage
 * checks (one homepage each) and draft attempts (at most 4 LLM requests each). Credits cap
 * what a workspace *keeps*; these hourly limits cap what it makes the service *spend*.
 */
export type CostKind = "provider_pages" | "live_checks" | "draft_attempts";
export type CostLimits = Record<"paid" | "free_trial", Record<CostKind, number>>;

const COST_KINDS: readonly CostKind[] = ["provider_pages", "live_checks", "draft_attempts"];
const HOUR_SECONDS = 3600;

const describe: Record<CostKind, string> = {
  provider_pages: "places-provider pages",
  live_checks: "live website checks",
  draft_attempts: "draft attempts",
};

interface WorkspaceTier {
  id: string;
  free_trial: boolean;
}

export interface CostGuard {
  readonly limits: CostLimits;
  /**
   * Spends one unit of `kind` for the workspace: true, or false once the hour's limit is reached.
   * A store failure throws 503 `rate_limit_unavailable`.
   */
  trySpend(workspace: WorkspaceTier, kind: CostKind): Promise<boolean>;
  /** Spends one unit or throws 429 `rate_limited` (`Retry-After: 60`). */
  spendOrThrow(workspace: WorkspaceTier, kind: CostKind): Promise<void>;
}

type Bucket = `${"paid" | "free_trial"}:${CostKind}`;

export function createCostGuard(limits: CostLimits, store: LimiterStore): CostGuard {
  const windows = {} as Record<Bucket, { points: number; windowSeconds: number }>;
  for (const tier of ["paid", "free_trial"] as const) {
    for (const kind of COST_KINDS) {
      windows[`${tier}:${kind}`] = { points: limits[tier][kind], windowSeconds: HOUR_SECONDS };
    }
  }
  const limiter: Limiter<Bucket> = createLimiter(windows, {
    ...store,
    keyPrefix: `${store.keyPrefix ?? "rl"}:cost`,
  });
  const tierOf = (workspace: WorkspaceTier) => (workspace.free_trial ? "free_trial" : "paid");

  const trySpend = async (workspace: WorkspaceTier, kind: CostKind) => {
    try {
      return (await limiter.consume(`${tierOf(workspace)}:${kind}`, workspace.id)).allowed;
    } catch (error) {
      throw rateLimitUnavailable(error);
    }
  };
  return {
    limits,
    trySpend,
    async spendOrThrow(workspace, kind) {
      if (await trySpend(workspace, kind)) return;
      throw costLimitReached(limits[tierOf(workspace)][kind], kind, workspace.free_trial);
    },
  };
}

function costLimitReached(limit: number, kind: CostKind, freeTrial: boolean): ApiError {
  return new ApiError(
    "rate_limited",
    `This workspace reached its limit of ${limit} ${describe[kind]} per hour${freeTrial ? " (free trial; buying credits raises it)" : ""}. Retry after 60 seconds.`,
    { headers: { "Retry-After": RETRY_AFTER_SECONDS } },
  );
}
