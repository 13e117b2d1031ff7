# The durable-jobs worker image, used by docker-compose.yml.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bin ./bin
# better-sqlite3 is a native module: its install script fetches a prebuilt binary or compiles one.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
# `npm ci` runs the `prepare` script, which compiles src/ into dist/; the prune drops the build and
# test tooling, and the install puts back what the image's built-in job types run beyond the
# library's own dependencies: every optional peer (the database drivers, the console, tracing) and
# nodemailer for send-email, at the versions package.json pins, native binaries built.
RUN npm ci && npm prune --omit=dev \
  && npm install --no-save --omit=dev --no-audit --no-fund $(node -p "const p = require('./package.json'); [...Object.entries(p.peerDependencies), ['nodemailer', p.devDependencies.nodemailer]].map(([n, v]) => n + '@' + v).join(' ')")

FROM node:20-bookworm-slim
# Everything the worker writes lives under DATA_DIR: jobs.db (the SQLite ledger, unless
# DATABASE_URL names PostgreSQL), outbox/ and reports/.
ENV NODE_ENV=production DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
# Created and owned by the runtime user before VOLUME: Docker seeds an empty named volume with the
# image directory's owner, so a fresh volume on /data (or /data/outbox) is writable by `node`.
RUN mkdir -p /data/outbox /data/reports && chown -R node:node /data
VOLUME ["/data"]
USER node
# The worker drains on SIGTERM (docker stop), then exits.
CMD ["node", "dist/worker/main.js"]
