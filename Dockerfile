# Parley's image, built by the project's own setup (scripts/setup.sh, the script `npm run serve`
# and `npm test` run) on the Debian 12 and Node 20 it is made for: the Debian packages of the
# built-in engines, the npm dependencies from the lockfile, the bundled models, Whisper and its
# model (PARLEY_WHISPER=off at build time leaves them out), the neural voices (Japanese:
# PARLEY_JAPANESE_TTS=off leaves them out), the console. deploy/compose.yaml
# builds and runs it:   docker build -t parley:latest .   (from the repository root)
#
# The data folder (/data: SQLite database and audio of a single process) is a volume to keep;
# a split deployment keeps its records and audio in PostgreSQL and S3 (docs/deployment.md).
FROM node:20-bookworm-slim

ARG PARLEY_WHISPER=auto
# A build argument is in the environment of the RUN steps: setup reads it.
ARG PARLEY_JAPANESE_TTS=auto

ENV NODE_ENV=production \
    PARLEY_SETUP_TEST_TOOLS=off \
    PARLEY_MODELS_DIR=/opt/parley/models \
    PARLEY_DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8080

SHELL ["/bin/bash", "-o", "pipefail", "-c"]
WORKDIR /opt/parley

# Python 3 with venv for the Whisper engine host, which setup builds; the rest comes from setup.
# Unpinned on purpose: Debian 12's security updates should reach every rebuild.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/*

COPY . .

# One layer: setup's Debian packages, npm install (production dependencies), models, console.
RUN PARLEY_WHISPER="$PARLEY_WHISPER" bash scripts/setup.sh \
 && rm -rf /var/lib/apt/lists/* /root/.npm /root/.cache .venv/wheel-cache \
 && mkdir -p /data \
 && chown 1000:1000 /data

# uid 1000 is the image's `node` user (numeric, so the host and Kubernetes can check it is not root).
USER 1000:1000
EXPOSE 8080
VOLUME ["/data"]
# The same start as `npm start`, without npm in between so signals reach Parley (graceful shutdown).
# dist/main.mjs: the server bundle setup built (scripts/build-server.mjs).
CMD ["node", "--enable-source-maps", "dist/main.mjs"]
