# syntax=docker/dockerfile:1
# One image for every role: APP_ROLE=all (default), api or worker.

# ---- build: compile the server and the dashboard with the dev dependencies ----
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY dashboard ./dashboard
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# ---- runtime: compiled code and production dependencies only, as a non-root user ----
FROM node:20-slim AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./package.json
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
USER node
EXPOSE 8080
# Liveness only: readiness (/health/ready) also needs PostgreSQL and Redis, which compose checks itself.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# Pending migrations run before the server listens. Operator commands in a container:
#   docker compose exec server node dist/cli/main.js token:create --description ci
CMD ["node", "dist/main.js"]
