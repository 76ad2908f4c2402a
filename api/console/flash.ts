import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { z } from "zod";
import { languageSchema } from "../../shared/languages.ts";
import { searchRequestSchema, searchResponseSchema } from "../../shared/search/schemas.ts";
import { hashSecret } from "../../shared/secrets.ts";

/**
 * What a form's answer shows once after its redirect (POST, 303, GET): the page a reload brings
 * back never repeats the action. Before sign-in it is kept for the browser's pre-session cookie. A new key or invite link is taken (shown once); a search's
 * results can be read again until they expire.
 */
const flashSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("key_created"), name: z.string(), key: z.string() }),
  z.object({ kind: z.literal("invite_created"), email: z.string(), url: z.string() }),
  z.object({ kind: z.literal("invite_mailed"), email: z.string() }),
  z.object({ kind: z.literal("sign_up_sent"), email: z.string(), language: languageSchema }),
  z.object({
    kind: z.literal("search"),
    request: searchRequestSchema,
    response: searchResponseSchema,
    balance: z.number().int(),
  }),
]);
export type Flash = z.infer<typeof flashSchema>;

const FLASH_TTL_SECONDS = 15 * 60;
const FLASH_ID = /^[A-Za-z0-9_-]{22}$/;

/** Kept per session: another browser (another session) cannot read it even with the id. */
export interface FlashStore {
  /** The id to put in the redirect, or null when the store is unavailable (the page then answers at once). */
  put(sessionToken: string, flash: Flash): Promise<string | null>;
  read(sessionToken: string, id: string, options: { take: boolean }): Promise<Flash | null>;
}

const parsed = (text: string | null): Flash | null => {
  if (text === null) return null;
  const result = flashSchema.safeParse(JSON.parse(text));
  return result.success ? result.data : null;
};

/** In Redis, shared by every API node (the redirect may land on another one). */
function redisFlashStore(redis: Redis, log: (error: unknown) => void): FlashStore {
  const keyOf = (sessionToken: string, id: string) => `console:flash:${hashSecret(sessionToken)}:${id}`;
  return {
    async put(sessionToken, flash) {
      const id = randomBytes(16).toString("base64url");
      try {
        await redis.set(keyOf(sessionToken, id), JSON.stringify(flash), "EX", FLASH_TTL_SECONDS);
        return id;
      } catch (error) {
        log(error);
        return null;
      }
    },
    async read(sessionToken, id, { take }) {
      if (!FLASH_ID.test(id)) return null;
      const key = keyOf(sessionToken, id);
      return parsed(await (take ? redis.getdel(key) : redis.get(key)));
    },
  };
}

/** In this process: a deployment without Redis is one API node. */
function memoryFlashStore(now: () => number): FlashStore {
  const entries = new Map<string, { text: string; expiresAt: number }>();
  return {
    async put(sessionToken, flash) {
      for (const [key, entry] of entries) if (entry.expiresAt <= now()) entries.delete(key);
      const id = randomBytes(16).toString("base64url");
      entries.set(`${hashSecret(sessionToken)}:${id}`, {
        text: JSON.stringify(flash),
        expiresAt: now() + FLASH_TTL_SECONDS * 1000,
      });
      return id;
    },
    async read(sessionToken, id, { take }) {
      const key = `${hashSecret(sessionToken)}:${id}`;
      const entry = entries.get(key);
      if (!entry || entry.expiresAt <= now()) return null;
      if (take) entries.delete(key);
      return parsed(entry.text);
    },
  };
}

export const createFlashStore = (redis: Redis | undefined, log: (error: unknown) => void): FlashStore =>
  redis ? redisFlashStore(redis, log) : memoryFlashStore(Date.now);
