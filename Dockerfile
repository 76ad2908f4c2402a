# syntax=docker/dockerfile:1
# The production image: one image for the API node, the audit worker and the one-shot migration.
#
#   docker build -t lead-api .
#   docker run --env-file .env lead-api                   # an API node: npm start (port 3000)
#   docker run --env-file .env lead-api npm run worker    # an audit worker (metrics on 9464)
#   docker run --env-file .env lead-api npm run migrate   # migrations, then exit 0 (before a rollout)
#
# Node.js is the base image's: the same version as the `node` dev dependency that pins it in
# development (test/integration/deploy/dockerfile.test.ts keeps the two equal). The npm scripts run
# `node` from PATH, so the image needs no dev dependency: `npm ci --omit=dev` installs none.
# Secrets (ADMIN_TOKEN, DATABASE_URL, API keys) come from the environment at run time, never from here.

# tini (PID 1: forwards SIGTERM to npm, which forwards it to node; reaps zombies), from Debian in a
# stage of its own so that the final image carries no apt lists. The static build needs no library.
FROM node:24.21.0-bookworm-slim AS tini
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini=0.19.0-1+b3 \
  && rm -rf /var/lib/apt/lists/*

FROM node:24.21.0-bookworm-slim AS runtime
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    HOST=0.0.0.0 \
    PORT=3000 \
    WORKER_METRICS_PORT=9464 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=tini /usr/bin/tini-static /usr/bin/tini
# Dependencies first: this layer is rebuilt only when the lock changes.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
# The code (.dockerignore is an allowlist: api, shared, workers, migrations, fixtures). Owned by
# root and read-only to the process; the only writable place is DATA_DIR (embedded mode only).
COPY . .
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000 9464
# /readyz: 200 once PostgreSQL (and Redis) answer, 503 while starting or when one is down. For the
# API node (the default command); compose and Kubernetes give the worker its own check (/healthz on
# WORKER_METRICS_PORT). No curl in slim images: Node's fetch.
HEALTHCHECK --interval=10s --timeout=5s --start-period=90s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["npm", "start"]
