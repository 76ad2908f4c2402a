import { constants } from "node:zlib";
import compress from "@fastify/compress";
import type { FastifyInstance } from "fastify";

/**
 * Compressed answers (brotli, else gzip) for the routes of the plugin that calls it: the pages,
 * their style sheet, the legal pages, the markdown reference. Brotli at quality 4, not the
 * library's 11: pages are rendered per request, and 11 costs more CPU than the bytes it saves.
 * Request bodies are never decompressed: the body limit stays a limit on what arrives.
 */
export async function compressAnswers(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    encodings: ["br", "gzip"],
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
  });
}
