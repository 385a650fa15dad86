"""Optional integrations, each behind its own extra; never imported by the core."""
