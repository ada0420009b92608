# eventops: two stages on the current Node LTS. The build stage compiles TypeScript and the SQLite
# addon (from source: node-gyp needs python3, make and g++); the runtime stage keeps production
# dependencies and dist/ only, and runs as the unprivileged "node" user.
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production PORT=3000 STORE_URL=sqlite:///data/eventops.sqlite
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# Alive: GET /healthz on the HTTP receiver's PORT, or on HEALTH_PORT in Socket Mode (no curl in the slim image).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const p=process.env.SLACK_APP_TOKEN?(process.env.HEALTH_PORT||3001):(process.env.PORT||3000);fetch('http://127.0.0.1:'+p+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Idle memory (docs/benchmarks.md, bench/idle.ts): a young generation of 1 MiB (V8's grows to 16 MiB
# while the bot starts and keeps it until its memory reducer runs, 15-30 s into the quiet); undici's
# HTTP parser (WebAssembly) compiled by Liftoff only (TurboFan compiling it took 36 MiB of malloc at
# the first request, up to 10 MiB of which stayed resident); one V8 worker thread (fewer arenas to
# keep what is freed); V8 sizing its heap for memory over speed (on Node 24 the Redis bot's heap
# stayed 57 MiB with 36 used; 38 with it, at no CPU cost on Node 24, 30% more on Node 20).
CMD ["node", "--max-semi-space-size=1", "--v8-pool-size=1", "--liftoff-only", "--optimize-for-size", "dist/main.js"]
