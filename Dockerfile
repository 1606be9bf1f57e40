# dex worker image: serves every dex workflow and this container's activities.
# Build deps stay in the first stage so the runtime image carries only what the worker runs.
FROM node:20-bookworm-slim AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# tsx is a runtime dependency (the CLI is TypeScript), so dev dependencies can stay out.
RUN npm ci --omit=dev && npm cache clean --force

FROM node:20-bookworm-slim
# git: worktrees and checkpoint commits. The repositories volume may belong to another uid,
# and git refuses such checkouts unless they are marked safe. bubblewrap: the sandbox of the
# agent's commands (docs/security.md); util-linux brings prlimit for its resource limits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates bubblewrap util-linux \
 && rm -rf /var/lib/apt/lists/* \
 && git config --system --add safe.directory '*'
WORKDIR /app
ENV NODE_ENV=production \
    TEMPORAL_ADDRESS=temporal:7233 \
    DEX_HOME=/data/dex
COPY --from=deps /app/node_modules ./node_modules
COPY . .
# The source stays root-owned and read-only to the worker; only its data and the repositories are writable.
RUN mkdir -p /data/dex /repos && chown node:node /data/dex /repos
USER node
VOLUME ["/data/dex"]
CMD ["node", "bin/dex.js", "worker"]
