"""A griffe extension for the docs build: tensorfrost's docstrings are plain text in reST's
habits, which Markdown reads differently. Before mkdocstrings renders a docstring this turns

- a literal block (a paragraph ending in ``::`` and the indented lines after it) into a fenced
  Python block, the paragraph ending in ``:`` (reST drops one colon, or both when ``::``
  stands alone), and
- a run of doctest lines (``>>>``, ``...`` and the output after them, up to a blank line)
  into a fenced ``pycon`` block, so that ``>>>`` does not become nested block quotes, and
- a numpy-style section (``Parameters`` over a line of dashes) into a bold title, its
  ``name : text`` items into a list, so that the dashes do not make a heading.

mkdocs.yml renders the result as Markdown with no docstring style: a parser's sections
would read the free text and doctests that follow a section as more of its items.

Everything else is left as written. It also drops ``*KEYS`` from ``tensorfrost.__all__``
when the package is read statically: the key constants are made at import time
(``globals().update(KEYS)``), which static analysis cannot see, so griffe would warn on it;
the API page documents them through ``tensorfrost.window.KEYS``. mkdocs.yml loads it with
``extensions: [docs/griffe_rest_blocks.py:RestBlocks]``.
"""

from __future__ import annotations

import re

import griffe


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _fence(lines: list[str], language: str, indent: int) -> list[str]:
    """``lines`` dedented into a fenced block whose fences sit at ``indent``."""
    pad = " " * indent
    common = min(_indent(line) for line in lines if line.strip())
    body = [line[common:] if line.strip() else "" for line in lines]
    while body and not body[-1]:
        body.pop()
    return [f"{pad}```{language}", *(pad + line if line else "" for line in body), f"{pad}```"]


def _literal_block(lines: list[str], start: int, indent: int) -> tuple[list[str], int]:
    """The indented lines after a ``::`` paragraph from ``start`` (blank lines first skipped)."""
    i = start
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i == len(lines) or _indent(lines[i]) <= indent:
        return [], start
    block_indent = _indent(lines[i])
    block = []
    while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) >= block_indent):
        block.append(lines[i])
        i += 1
    return block, i


def _doctest_block(lines: list[str], start: int) -> tuple[list[str], int]:
    """The doctest run starting at ``start``: prompts, continuations and output lines."""
    i = start
    while i < len(lines) and lines[i].strip():
        i += 1
    return lines[start:i], i


_SECTIONS = {"Parameters", "Other Parameters", "Returns", "Yields", "Raises", "Attributes", "Example",
             "Examples", "Notes", "See Also", "Warnings", "References"}
_ITEM = re.compile(r"^(\*{0,2}[\w.]+(?:, *\*{0,2}[\w.]+)*) *: *(.*)$")


def _numpy_section(lines: list[str], start: int) -> tuple[list[str], int]:
    """The section whose title is ``lines[start]`` (underlined by the next line) as Markdown:
    a bold title and, for items ``name : text`` with indented continuation lines, a list."""
    indent = _indent(lines[start])
    out = [" " * indent + f"**{lines[start].strip()}**", ""]
    i = start + 2
    while i < len(lines):
        line = lines[i]
        match = _ITEM.match(line.strip()) if line.strip() and _indent(line) == indent else None
        if match is None:
            break
        name, text = match.groups()
        out.append(" " * indent + f"- `{name}`: {text}".rstrip())
        i += 1
        while i < len(lines) and lines[i].strip() and _indent(lines[i]) > indent:
            out.append(" " * (indent + 2) + lines[i].strip())
            i += 1
    return out, i


def _is_section(lines: list[str], i: int) -> bool:
    under = lines[i + 1].strip() if i + 1 < len(lines) else ""
    return lines[i].strip() in _SECTIONS and len(under) >= 3 and set(under) == {"-"}


def convert(text: str) -> str:
    """``text`` with reST literal blocks and doctest runs as fenced Markdown code blocks."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    in_fence = False
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
        if in_fence:
            out.append(line)
            i += 1
            continue
        if _is_section(lines, i):
            section, i = _numpy_section(lines, i)
            out.extend(section)
            continue
        if stripped.startswith(">>>"):
            block, i = _doctest_block(lines, i)
            if out and out[-1].strip():
                out.append("")
            out.extend(_fence(block, "pycon", _indent(line)))
            out.append("")
            continue
        if stripped.endswith("::"):
            block, end = _literal_block(lines, i + 1, _indent(line))
            if block:
                head = line.rstrip()[:-2].rstrip()
                if head.strip():
                    out.append(head + ("" if head.endswith(":") else ":"))
                out.append("")
                out.extend(_fence(block, "python", _indent(line)))
                out.append("")
                i = end
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


class RestBlocks(griffe.Extension):
    """Rewrites each loaded object's docstring with ``convert`` (see the module docstring)."""

    def on_module_members(self, *, node, mod, agent, **kwargs) -> None:
        if mod.path == "tensorfrost" and mod.exports:
            mod.exports = [name for name in mod.exports if isinstance(name, str)]

    def on_instance(self, *, node, obj, agent, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = convert(obj.docstring.value)
