"""The demo graphs, one module per served model."""
