"""Protocol-neutral graph registration and execution."""
