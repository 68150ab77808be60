"""Compiler passes, run in order by ``pipeline.compile_program``."""
