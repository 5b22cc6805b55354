# Slipway API image: Bun runtime from npm, the app, a non-root user, the database on a volume.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
RUN groupadd --system slipway && useradd --system --gid slipway --home /app slipway \
 && mkdir -p /data && chown slipway:slipway /data
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY src ./src
COPY drizzle ./drizzle
USER slipway
ENV NODE_ENV=production PORT=3000 DATABASE_URL=file:/data/slipway.db
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["./node_modules/.bin/bun", "src/index.ts"]
