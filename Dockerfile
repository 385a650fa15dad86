# One image for every Python service of the demo stack (compose.yaml): the
# demo API (lgos serve), the Hatchet worker (lgos worker), the Files service,
# the corpus server and the Chainlit UI. Installed from uv.lock, nothing else.
#
#   docker build -t lgos-demo:local .

# No `# syntax=` line: the Dockerfile frontend built into BuildKit (Docker
# 20.10 and later) has everything used here, RUN --mount included, and a
# syntax line would make every build fetch a frontend image from a registry.
#
# The base images, pinned; a build argument replaces each (compose.yaml passes
# DEMO_PYTHON_IMAGE and DEMO_UV_IMAGE, which CI points at local stand-ins).
ARG PYTHON_IMAGE=python:3.11-slim-bookworm
ARG UV_IMAGE=ghcr.io/astral-sh/uv:0.13.9

FROM ${UV_IMAGE} AS uv

# --- build: the virtual environment in /app/.venv ---------------------------
FROM ${PYTHON_IMAGE} AS build
COPY --from=uv /uv /uvx /bin/
ENV UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=0 \
    UV_PROJECT_ENVIRONMENT=/app/.venv
WORKDIR /app

# The services need LGOS's server, postgres, hatchet and tracing extras: the
# demo API's dependencies bring server and postgres, the flags the rest.
# 1. Third-party packages only: this layer is rebuilt when uv.lock or a
#    pyproject.toml changes, not when the source does.
RUN --mount=type=cache,target=/root/.cache/uv \
    --mount=type=bind,source=uv.lock,target=uv.lock \
    --mount=type=bind,source=pyproject.toml,target=pyproject.toml \
    --mount=type=bind,source=lgos/pyproject.toml,target=lgos/pyproject.toml \
    --mount=type=bind,source=demo/api/pyproject.toml,target=demo/api/pyproject.toml \
    --mount=type=bind,source=demo/files/pyproject.toml,target=demo/files/pyproject.toml \
    --mount=type=bind,source=demo/gateway/pyproject.toml,target=demo/gateway/pyproject.toml \
    --mount=type=bind,source=demo/launcher/pyproject.toml,target=demo/launcher/pyproject.toml \
    --mount=type=bind,source=ui/client/pyproject.toml,target=ui/client/pyproject.toml \
    --mount=type=bind,source=ui/chainlit/pyproject.toml,target=ui/chainlit/pyproject.toml \
    --mount=type=bind,source=ui/open-webui/pyproject.toml,target=ui/open-webui/pyproject.toml \
    uv sync --frozen --no-dev --all-packages --extra hatchet --extra tracing \
        --no-install-workspace

# 2. The workspace packages themselves (lgos, demo/api, demo/files,
#    demo/gateway, demo/launcher, ui/client, ui/chainlit, ui/open-webui),
#    installed editable so Chainlit finds ui/chainlit/.chainlit.
COPY . /app
RUN --mount=type=cache,target=/root/.cache/uv \
    uv sync --frozen --no-dev --all-packages --extra hatchet --extra tracing

# --- litellm: the gateway's pinned LiteLLM proxy in its own venv ------------
# Only the `gateway` target copies it (Compose profile "gateway"): its
# dependencies stay out of uv.lock and out of the services' image. The version
# is scripts/ensure-litellm.sh's (tests/compose keeps them equal); never 1.107.0,
# a compromised release.
FROM ${PYTHON_IMAGE} AS litellm
COPY --from=uv /uv /bin/
ARG LITELLM_VERSION=1.108.7
ENV UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=0
RUN --mount=type=cache,target=/root/.cache/uv \
    uv venv /opt/litellm \
    && uv pip install --python /opt/litellm/bin/python "litellm[proxy]==${LITELLM_VERSION}"

# --- runtime: no uv, no build tools, a non-root user ------------------------
FROM ${PYTHON_IMAGE} AS runtime
RUN groupadd --system --gid 10001 lgos \
    && useradd --system --uid 10001 --gid lgos --create-home --home-dir /home/lgos lgos
COPY --from=build /app /app
# Writable places: the data volumes' mount points (a new named volume takes
# their ownership) and the uploads folder Chainlit keeps in its app root.
RUN mkdir -p /data/files /data/chainlit /data/mcp /data/bifrost /app/ui/chainlit/.files \
    && chown -R lgos:lgos /data /app/ui/chainlit/.files
ENV PATH=/app/.venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /app
USER lgos
EXPOSE 8000 8001 8002 8003 8005
CMD ["lgos", "--help"]

# --- gateway: the services' image plus the LiteLLM proxy ---------------------
# `python -m lgos_demo_gateway serve` (Compose profile "gateway") runs this
# proxy; `docker build --target gateway -t lgos-demo-gateway:local .`
FROM runtime AS gateway
COPY --from=litellm /opt/litellm /opt/litellm
ENV DEMO_GATEWAY_LITELLM=/opt/litellm/bin/litellm
EXPOSE 4000

# --- the default target (the last stage): the services' image, as above ------
FROM runtime
