# syntax=docker/dockerfile:1
# The gateway's container image. Two stages: `build` installs every dependency and compiles engine/ and scripts/ to
# dist/, with dist/pglite-cluster (the empty embedded database a first start copies, readable by the `node` user);
# `runtime` holds production dependencies only (no tsx, no TypeScript) and runs dist/ with plain node, the
# same command as `npm start` (package.json). Not built on the machines it was written on (no container engine
# there): spec/build/dockerfile.spec.ts checks its facts and `npm run rehearse:container` runs its RUN commands
# and its CMD and HEALTHCHECK in temporary folders, without a container (docs/operations.md, Container).
#
# Node 24 (LTS): the newest line the project runs its tests on. Override with --build-arg NODE_VERSION=...
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data \
    DEFINITIONS_DIR=/definitions
WORKDIR /app
COPY package.json package-lock.json ./
# npm's cache is a build cache mount, not a layer of the image.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY schemas ./schemas
# The browser files the gateway serves as they are (web/connect: the Connect page, /connect; web/sdk: the browser
# SDK, /sdk/connect.js and .mjs, read at start): not compiled, so not in dist/.
COPY web ./web
# The bundled apps: a new volume mounted at /definitions starts with them.
COPY definitions /definitions
RUN mkdir -p /data && chown -R node:node /data /definitions
VOLUME ["/data", "/definitions"]
# The image's own unprivileged user (uid 1000).
USER node
EXPOSE 8080
# No curl in a slim image: node's own fetch asks /health.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/engine/main.js"]
