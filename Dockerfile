# syntax=docker/dockerfile:1
# podwarden: built on the current Node LTS, shipping only the runtime pieces, run as non-root.
# CI has no Docker: scripts/docker-build-steps.sh runs this build stage's steps on a clean checkout
# and smoke-tests the resulting tree; keep the two in step.
ARG NODE_IMAGE=node:26-trixie-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches the Node ABI.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM ${NODE_IMAGE} AS runtime
# The baked configuration watches one account (RUNPOD_API_KEY) and keeps its database on /data;
# mount your own file over /etc/podwarden/podwarden.yaml (or set PODWARDEN_CONFIG) for more.
ENV NODE_ENV=production \
    PODWARDEN_CONFIG=/etc/podwarden/podwarden.yaml
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY migrations ./migrations
COPY config ./config
COPY config/docker/podwarden.yaml /etc/podwarden/podwarden.yaml
# UID 1000 is the image's `node` user; numeric, so Kubernetes' runAsNonRoot can verify it.
RUN mkdir -p /data && chown 1000:1000 /data
USER 1000:1000
VOLUME ["/data"]
# /metrics, /healthz, /readyz and /api/status (http.listen in the configuration).
EXPOSE 9464
# Slim images have no curl; Node 18+ has fetch. The port is the default of http.listen.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# No --max-old-space-size: a cap too low for a large account would be a crash loop. The daemon sets
# its own pace of full collections at start instead (src/memory-policy.ts) and logs it with the
# heap limit; `node --heap-growing-percent=N` here would override it.
ENTRYPOINT ["node", "/app/dist/main.js"]
CMD ["run"]
