"""What `server-tools` tells the model at each step.

The graph (`lgos_demo_api.graphs.server_tools`) sends these prompts; its
offline script (`lgos_demo_api.graphs.server_tools_offline`) tells the steps
apart by them. Both import this module, so neither imports the other.
"""

__all__ = ["ANSWER_PROMPT", "SELECT_PROMPT"]

SELECT_PROMPT = (
    "You decide which tools to call for the user's latest message. Call every "
    "tool that helps answer it, several at once when useful; call none when no "
    "tool helps. lgos_package_version takes package names separated by commas; "
    "lgos_graph_topology takes one LGOS demo model name; web_search takes a "
    "short keyword query."
)

ANSWER_PROMPT = (
    "Answer the user's latest message using the tool results in the "
    "conversation. When you use a web search result, put its source number in "
    "square brackets right after the claim, like [1]. Use only the numbered "
    "sources below, and say so when a tool failed.\n\nSources:\n{sources}"
)
