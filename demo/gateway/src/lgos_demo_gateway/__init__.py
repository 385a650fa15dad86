"""The demo's optional LiteLLM gateway in front of LGOS, and the LGOS model sync.

LiteLLM's proxy rebuilds `GET /v1/models` from standard fields, so the `lgos`
discovery extension does not reach clients through it. The sync reads every
graph's full `lgos` detail from LGOS (`GET /v1/models/{id}`) and writes a
LiteLLM proxy configuration whose `model_info.lgos` carries it, so LiteLLM's
native `GET /model/info` serves it per `model_name`. The pinned proxy
(`scripts/ensure-litellm.sh`) runs without a database, where its management
API (`/model/new`, `/model/update`) is refused; a changed configuration is
therefore applied by restarting the proxy, which `python -m lgos_demo_gateway
serve` supervises. With `DEMO_GATEWAY_MCP_URL` (`just demo --gateway --mcp`)
the configuration also names the demo MCP server in `mcp_servers`, so
LiteLLM's MCP gateway at `/mcp` serves its tools. See docs/demo/stack.md
("The gateway") and docs/how-to/proxies.md.
"""

from lgos_demo_gateway.settings import GatewaySettings
from lgos_demo_gateway.sync import (
    LgosModel,
    SyncError,
    build_config,
    fetch_models,
    gateway_model_info,
    write_config,
)

__all__ = [
    "GatewaySettings",
    "LgosModel",
    "SyncError",
    "build_config",
    "fetch_models",
    "gateway_model_info",
    "write_config",
]
