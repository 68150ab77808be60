"""The IR: dtypes, nodes and scopes, the op table, the tracer, printer and interpreter."""
