# Slipway: build the standalone binary (same steps as `npm run build`, tested by tests/ops/binary.test.ts),
# then run it alone as a non-root user with the database on a volume.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build

FROM debian:bookworm-slim
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
