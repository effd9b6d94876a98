# syntax=docker/dockerfile:1
# Every Tradewind image: the six services and the web app, chosen by build arguments whose values
# are in deploy/services.json (components.<name>: workspace, description, ports). docs/containers.md.
# Build from the repository root, so services/lib, packages/contracts (with the generated proto
# code), the manifest and the workspace lockfile are in context:
#   docker build --build-arg COMPONENT=billing --build-arg WORKSPACE=services/billing -t tradewind/billing .
#   docker build --build-arg COMPONENT=web --build-arg WORKSPACE=web -t tradewind/web .
#   ... --target dev                          the Tilt flavour (the Tiltfile passes the arguments)
# Stages: manifests → deps (production) / dev-deps → build → runtime; dev. A service's image and
# web's differ in how the tree is made (web builds the Vite app); the per-component stages at the
# end hold the rest of what differs: extra files and the command.

# Debian (glibc) like the machine the lockfile is made on: its optional native packages
# (esbuild, yellowstone-grpc-napi, rollup, rolldown, lightningcss) are the -gnu builds.
ARG NODE_IMAGE=node:22-bookworm-slim
# The component (a key of deploy/services.json, the image name) and its npm workspace.
ARG COMPONENT=auth
ARG WORKSPACE=services/auth

# The lockfile and every workspace's package.json: npm ci checks the whole workspace against the
# lockfile. Dependency layers are rebuilt only when one of these changes.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /app
COPY package.json package-lock.json ./
COPY services/lib/package.json services/lib/
COPY packages/contracts/package.json packages/contracts/
COPY dev/package.json dev/
COPY services/auth/package.json services/auth/
COPY services/billing/package.json services/billing/
COPY services/ingest/package.json services/ingest/
COPY services/credential-issuer/package.json services/credential-issuer/
COPY services/ws-fanout/package.json services/ws-fanout/
COPY services/token-price/package.json services/token-price/
COPY web/package.json web/
COPY packages/client/package.json packages/client/

# Production dependencies of the component's workspace and @tradewind/lib (tsx included), not the
# root's (embedded-postgres). --ignore-scripts: the native packages used ship prebuilt binaries,
# and no dependency's code runs at build time (docs/containers.md, Stages).
FROM manifests AS deps
ARG WORKSPACE
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --workspace ${WORKSPACE} --include-workspace-root=false --ignore-scripts --no-audit --no-fund

# ---- services ----

# All dependencies of a service's workspace, dev ones included, for the dev target.
FROM manifests AS service-dev-deps
ARG WORKSPACE
RUN --mount=type=cache,target=/root/.npm \
    npm ci --workspace ${WORKSPACE} --include-workspace-root=false --ignore-scripts --no-audit --no-fund

# What a service runs from, under /app: the shared library, the services manifest (the config
# defaults read it) and its own sources; the files-<component> stages below add its extra files.
FROM scratch AS service-files
ARG WORKSPACE
COPY services/lib/src /app/services/lib/src
COPY packages/contracts/src /app/packages/contracts/src
COPY deploy/services.json /app/deploy/
COPY ${WORKSPACE}/src /app/${WORKSPACE}/src

FROM service-files AS files-auth
FROM service-files AS files-billing
FROM service-files AS files-credential-issuer
# The NATS server config template behind renderNatsServerConfig (part of the package's public surface).
COPY deploy/nats/nats-server.conf.tmpl /app/deploy/nats/
FROM service-files AS files-token-price
FROM service-files AS files-ingest
# Read at run time: the IDLs kept in the repository, and the bundled real mainnet recording
# (REPLAY_DIR's default, the default source). Not packages/contracts/schemas (tests, the web build and the web server).
COPY services/ingest/idl /app/services/ingest/idl
COPY services/ingest/recording /app/services/ingest/recording
FROM service-files AS files-ws-fanout
# Never used (web is not a service); here so every COMPONENT names a stage.
FROM service-files AS files-web
FROM files-${COMPONENT} AS service-files-selected

# The sources on the production tree, then a check that every module the service imports
# resolves against it, so a missing file fails the build.
FROM deps AS service-build
ARG WORKSPACE
COPY --from=service-files-selected /app/ ./
RUN TSX_DISABLE_CACHE=1 node --import tsx --input-type=module \
    -e "await import('./${WORKSPACE}/src/app.ts'); await import('./${WORKSPACE}/src/config.ts')"

# ---- web ----

# All dependencies of the workspace (vite, the React plugin), for the build and the dev target;
# with the client library's and the root's (TypeScript): the build packs @tradewind/client for the
# WebSocket starter template's download.
FROM manifests AS web-dev-deps
RUN --mount=type=cache,target=/root/.npm \
    npm ci --workspace web --workspace packages/client --include-workspace-root --ignore-scripts --no-audit --no-fund

# The client bundle, the server-render bundle and the prerendered pages into web/dist
# (web/scripts/build.ts). The site's public settings are fixed at build time (web/src/site.ts):
#   --build-arg VITE_PUBLIC_URL=https://tradewind.example --build-arg VITE_WS_URL=wss://ws.tradewind.example
FROM web-dev-deps AS web-build
ARG VITE_PUBLIC_URL=""
ARG VITE_WS_URL=""
ARG VITE_NATS_URL=""
ARG VITE_REPOSITORY_URL=""
ARG VITE_DISCORD_URL=""
ARG VITE_TELEGRAM_URL=""
ARG VITE_SUPPORT_EMAIL=""
# No tsconfig.json: the build needs none (Vite transforms with its defaults, the output is the
# same) and web/tsconfig.json's project references would pull in the rest of the repository.
COPY packages/contracts/src packages/contracts/src
COPY packages/contracts/schemas packages/contracts/schemas
COPY examples examples
COPY tsconfig.base.json ./
COPY packages/client/src packages/client/src
COPY packages/client/tsconfig.build.json packages/client/README.md packages/client/
COPY web/index.html web/vite.config.ts web/
COPY web/public web/public
COPY web/scripts web/scripts
COPY web/server web/server
COPY web/src web/src
# The ARGs above are in this RUN's environment; an empty one counts as unset (web/src/site.ts).
RUN node --import tsx web/scripts/build.ts

# What the server needs: its own sources, the route list it reads (pure data) and the built
# site, on top of the production dependencies; then a check that every import resolves.
FROM deps AS web-server
COPY services/lib/src services/lib/src
COPY packages/contracts/src packages/contracts/src
# @tradewind/lib's services manifest, as in every image (web/server/main.ts reads its ports from it).
COPY deploy/services.json deploy/
COPY web/server web/server
# The trade-message JSON Schemas the web server serves at their $id paths (/schemas/*, WEB_SCHEMAS_DIR).
COPY packages/contracts/schemas packages/contracts/schemas
COPY web/src/route-paths.ts web/src/
COPY web/src/content/blog/posts.ts web/src/content/blog/
COPY --from=web-build /app/web/dist web/dist
RUN TSX_DISABLE_CACHE=1 node --import tsx --input-type=module -e "await import('./web/server/app.ts')"

# ---- the images ----

# Tilt: every dependency and the sources, owned by the app user so the sync can write;
# `node --watch` restarts the process when an imported file changes.
FROM ${NODE_IMAGE} AS dev-base
# Space-separated ports of the component (deploy/services.json; documentation only).
ARG PORTS=""
ENV NODE_ENV=development
WORKDIR /app
USER 10001:10001
EXPOSE ${PORTS}

FROM dev-base AS service-dev
COPY --from=service-dev-deps --chown=10001:10001 /app ./
COPY --from=service-files-selected --chown=10001:10001 /app/ ./

# web: the built app with every dependency and source. After syncing web/src, run
# `node --import tsx web/scripts/build.ts && touch web/server/main.ts` to rebuild and restart (the
# server reads the pages once at start).
FROM dev-base AS web-dev
COPY --from=web-build --chown=10001:10001 /app ./

# Runtime: production dependencies and sources only, owned by root and read-only to the app user.
# Nothing is written outside /tmp; TSX_DISABLE_CACHE keeps tsx from writing its cache even there.
FROM ${NODE_IMAGE} AS runtime-base
ARG COMPONENT
ARG DESCRIPTION=""
ARG PORTS=""
ARG SOURCE_URL=
ARG REVISION=unknown
LABEL org.opencontainers.image.title="tradewind-${COMPONENT}" \
      org.opencontainers.image.description="Tradewind ${COMPONENT}: ${DESCRIPTION}" \
      org.opencontainers.image.source="${SOURCE_URL}" \
      org.opencontainers.image.revision="${REVISION}"
ENV NODE_ENV=production \
    TSX_DISABLE_CACHE=1
WORKDIR /app
USER 10001:10001
EXPOSE ${PORTS}

FROM runtime-base AS service-runtime
COPY --from=service-build /app ./

FROM runtime-base AS web-runtime
COPY --from=web-server /app ./

# The command of each component: node is PID 1 (exec form) and receives SIGTERM itself
# (services/lib lifecycle.ts drains and exits). CMD cannot take a build argument, hence a stage each.
FROM service-dev AS dev-auth
CMD ["node", "--watch", "--import", "tsx", "services/auth/src/main.ts"]
FROM service-dev AS dev-billing
CMD ["node", "--watch", "--import", "tsx", "services/billing/src/main.ts"]
FROM service-dev AS dev-credential-issuer
CMD ["node", "--watch", "--import", "tsx", "services/credential-issuer/src/main.ts"]
FROM service-dev AS dev-token-price
CMD ["node", "--watch", "--import", "tsx", "services/token-price/src/main.ts"]
FROM service-dev AS dev-ingest
CMD ["node", "--watch", "--import", "tsx", "services/ingest/src/main.ts"]
FROM service-dev AS dev-ws-fanout
CMD ["node", "--watch", "--import", "tsx", "services/ws-fanout/src/main.ts"]
FROM web-dev AS dev-web
CMD ["node", "--watch", "--import", "tsx", "web/server/main.ts"]

FROM service-runtime AS runtime-auth
CMD ["node", "--import", "tsx", "services/auth/src/main.ts"]
FROM service-runtime AS runtime-billing
CMD ["node", "--import", "tsx", "services/billing/src/main.ts"]
FROM service-runtime AS runtime-credential-issuer
CMD ["node", "--import", "tsx", "services/credential-issuer/src/main.ts"]
FROM service-runtime AS runtime-token-price
CMD ["node", "--import", "tsx", "services/token-price/src/main.ts"]
FROM service-runtime AS runtime-ingest
CMD ["node", "--import", "tsx", "services/ingest/src/main.ts"]
FROM service-runtime AS runtime-ws-fanout
CMD ["node", "--import", "tsx", "services/ws-fanout/src/main.ts"]
FROM web-runtime AS runtime-web
CMD ["node", "--import", "tsx", "web/server/main.ts"]

# ---- development stand-ins: never a production image ----

# The @tradewind/dev workspace (dev/: the local OpenID Connect provider and the local Stripe
# stand-in), run as sidecars of auth and billing on developer clusters only (charts/tradewind,
# development.enabled; Tilt builds it as tradewind/stand-ins with --target stand-ins). No
# component's image contains it: a service's workspace does not depend on @tradewind/dev.
FROM manifests AS stand-ins-deps
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --workspace dev --include-workspace-root=false --ignore-scripts --no-audit --no-fund

FROM dev-base AS stand-ins
COPY --from=stand-ins-deps --chown=10001:10001 /app ./
# dev/ imports @tradewind/lib, and billing's price catalogue and credential-issuer's NATS config by package name.
COPY --chown=10001:10001 services/lib/src services/lib/src
COPY --chown=10001:10001 packages/contracts/src packages/contracts/src
COPY --chown=10001:10001 services/billing/src services/billing/src
COPY --chown=10001:10001 services/credential-issuer/src services/credential-issuer/src
COPY --chown=10001:10001 deploy/nats/nats-server.conf.tmpl deploy/nats/
COPY --chown=10001:10001 deploy/services.json deploy/routes.json deploy/
COPY --chown=10001:10001 dev/src dev/src
COPY --chown=10001:10001 dev/bin dev/bin
RUN TSX_DISABLE_CACHE=1 node --import tsx --input-type=module \
    -e "await import('./dev/src/index.ts')"
# The chart names the command of each sidecar (dev/bin/local-oidc.ts, dev/bin/local-stripe.ts).
CMD ["node", "--import", "tsx", "dev/bin/local-oidc.ts"]

# The targets: `dev` (Tilt) and `runtime`, last, so the default.
FROM dev-${COMPONENT} AS dev
FROM runtime-${COMPONENT} AS runtime
