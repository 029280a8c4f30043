"""Turn the MyST Markdown of a page into Markdown that Jupyter, Colab and Binder render.

The website renders roles (``{glue:text}`name:.2f` ``) and directives (``:::{admonition}``,
``literalinclude``) that a notebook shows as raw markup. :func:`to_jupyter` rewrites one
Markdown cell:

* ``{glue:text}`` and ``{glue}`` become the value computed by the build, formatted as on the page;
* ``{math}`` becomes ``$...$``; a cross-reference becomes what the reference lookup gives for
  it (a figure number, or a section's title linked to its heading), or its own title; label
  targets ``(name)=`` are dropped; a link to a sibling page ``x.md`` points to its notebook
  ``x.ipynb``;
* admonitions (``admonition``, ``note``, ``tip``, ``warning``, ...) become a blockquote with a
  bold title;
* ``literalinclude`` becomes the included source as a fenced code block;
* ``code-block`` and ``math`` become a fenced block and ``$$ ... $$``.

Anything else raises :class:`UnsupportedMyST`, naming the page and the markup, so a new
construct is handled here before a notebook shows it raw.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable
from pathlib import Path

ROLE = re.compile(r"\{(?P<name>[a-zA-Z][\w:-]*)\}`(?P<content>[^`]+)`")
FENCE_OPEN = re.compile(
    r"^(?P<indent> {0,3})(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}[ \t]*(?P<argument>.*)$")
OPTION = re.compile(r"^:(?P<key>[\w-]+):[ \t]*(?P<value>.*)$")
TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$")
ADMONITIONS = {"admonition", "note", "tip", "hint", "important", "warning", "caution", "attention",
               "danger", "error", "seealso"}
LABEL_TARGET = re.compile(r"^\([\w.:-]+\)=[ \t]*\n?", re.MULTILINE)  # (name)= before a heading
MARKDOWN_SPECIAL = re.compile(r"([\\`*_<>|])")
# Brackets as character references, not "\[": a renderer that takes "\[ ... \]" for display math
# would read it as math (Colab is reported to, in a cell that also holds "$").
BRACKETS = {"[": "&#91;", "]": "&#93;"}
# what as_text writes for a character: the character escaped, or a bracket's reference
ESCAPED = re.compile(r"\\" + MARKDOWN_SPECIAL.pattern + "|" + "|".join(BRACKETS.values()))
PAGE_LINK = re.compile(r"\]\((?P<path>[\w./-]+)\.md(?P<anchor>#[^)\s]*)?\)")

GlueLookup = Callable[[str, str], str]  # (key, format spec) -> the text the page shows
ReferenceLookup = Callable[[str], tuple[str, str]]  # target label -> (the text it shows, a link or "")


class UnsupportedMyST(ValueError):
    """MyST markup that has no Jupyter equivalent here yet."""


def to_jupyter(markdown: str, page: Path, glue_text: GlueLookup,
               reference_text: ReferenceLookup | None = None) -> str:
    """Rewrite one Markdown cell of ``page`` so that Jupyter renders it as the website does.

    Args:
        markdown: the cell's MyST Markdown.
        page: the page's path (literalinclude paths are relative to it).
        glue_text: returns the formatted value of a glue key, or raises KeyError.
        reference_text: returns what a cross-reference shows and where it links
            (``{numref}`fig-x` `` -> ("Figure 4.2", ""), ``{ref}`sec` `` -> ("Its title",
            "#Its-title")), or raises KeyError.
    Returns:
        Plain (CommonMark + GFM + LaTeX) Markdown.
    """
    markdown = LABEL_TARGET.sub("", markdown)  # a target for cross-references; Jupyter shows it raw
    markdown = _page_links(markdown, page)
    return _roles(_directives(markdown, page, glue_text, reference_text), page, glue_text, reference_text)


def _page_links(text: str, page: Path) -> str:
    """Point Markdown links to a sibling MyST notebook page (``x.md``) at its twin (``x.ipynb``)."""

    def replace(match: re.Match) -> str:
        target = page.parent / f"{match['path']}.md"
        if not target.is_file() or "\nkernelspec:" not in target.read_text()[:600]:
            return match[0]
        return f"]({match['path']}.ipynb{match['anchor'] or ''})"

    return PAGE_LINK.sub(replace, text)


def _roles(text: str, page: Path, glue_text: GlueLookup,
           reference_text: ReferenceLookup | None = None) -> str:
    def replace(match: re.Match) -> str:
        name, content = match["name"], match["content"]
        if name in ("glue:text", "glue"):
            key, _, spec = content.partition(":")
            try:
                return as_text(glue_text(key.strip(), spec))
            except KeyError:
                raise UnsupportedMyST(f"{page}: no value for {{{name}}}`{content}` in the build's glue data "
                                      "(build the site first: `make book`)") from None
        if name == "math":
            return f"${content}$"
        titled = TITLED.match(content)
        if name in ("ref", "doc", "numref", "term", "download") and titled and titled["title"]:
            if name in ("ref", "numref") and reference_text is not None:
                try:
                    shown, link = reference_text(titled["target"].strip())
                except KeyError:
                    return titled["title"]
                title = titled["title"].replace("%s", shown.split()[-1])
                return f"[{title}]({link})" if link else title
            return titled["title"]
        if name in ("ref", "numref") and reference_text is not None:
            try:
                shown, link = reference_text(content.strip())
            except KeyError:
                raise UnsupportedMyST(f"{page}: no target for {{{name}}}`{content}` "
                                      "(a figure's name, or a label above a heading)") from None
            shown = as_text(shown)
            return f"[{shown}]({link})" if link else shown
        raise UnsupportedMyST(f"{page}: role {{{name}}}`{content}` has no Jupyter form; "
                              "handle it in tools/myst_markdown.py")

    return ROLE.sub(replace, text)


def as_text(text: str) -> str:
    """``text`` written into Markdown so that it reads as itself (no emphasis, link or math)."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", text).translate(str.maketrans(BRACKETS))


def text_of(markdown: str) -> str:
    """The text that :func:`as_text` wrote as ``markdown``."""
    brackets = {written: bracket for bracket, written in BRACKETS.items()}
    return ESCAPED.sub(lambda match: match[1] or brackets[match[0]], markdown)


def _directives(text: str, page: Path, glue_text: GlueLookup,
                reference_text: ReferenceLookup | None = None) -> str:
    lines = text.split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        opening = FENCE_OPEN.match(lines[index])
        if not opening:
            out.append(lines[index])
            index += 1
            continue
        fence = opening["fence"]
        end = _closing_line(lines, index + 1, fence)
        if end is None:
            raise UnsupportedMyST(f"{page}: directive {{{opening['name']}}} is never closed")
        options, body = _options_and_body(lines[index + 1:end])
        out.extend(_render(opening["name"], opening["argument"].strip(), options, body, page, glue_text,
                           reference_text))
        index = end + 1
    return "\n".join(out)


def _closing_line(lines: list[str], start: int, fence: str) -> int | None:
    """The index of the line that closes ``fence``, skipping nested fences of the same kind."""
    depth = 0
    for index in range(start, len(lines)):
        stripped = lines[index].strip()
        if FENCE_OPEN.match(lines[index]) and FENCE_OPEN.match(lines[index])["fence"][0] == fence[0]:
            depth += 1
        elif stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
            if depth == 0:
                return index
            depth -= 1
    return None


def _options_and_body(lines: list[str]) -> tuple[dict[str, str], list[str]]:
    options: dict[str, str] = {}
    if lines and lines[0].strip() == "---":  # a YAML block of options
        import yaml

        end = lines.index("---", 1)
        options = {key: str(value) for key, value in (yaml.safe_load("\n".join(lines[1:end])) or {}).items()}
        return options, lines[end + 1:]
    index = 0
    while index < len(lines) and (match := OPTION.match(lines[index])):
        options[match["key"]] = match["value"].strip()
        index += 1
    return options, lines[index:]


def _render(name: str, argument: str, options: dict[str, str], body: list[str], page: Path,
            glue_text: GlueLookup, reference_text: ReferenceLookup | None = None) -> list[str]:
    inner = "\n".join(body).strip("\n")
    if name in ADMONITIONS:
        title = argument if name == "admonition" else (argument or name.capitalize())
        if name == "seealso" and not argument:
            title = "See also"
        content = to_jupyter(inner, page, glue_text, reference_text)
        quoted = [f"> {line}" if line else ">" for line in content.split("\n")]
        return [f"> **{_roles(title, page, glue_text, reference_text)}**", ">", *quoted]
    if name == "literalinclude":
        return _fenced(_included_source(page.parent / argument, options, page), options.get("language", ""))
    if name in ("code-block", "code", "sourcecode"):
        return _fenced(inner, argument)
    if name == "math":
        return ["$$", inner, "$$"]
    raise UnsupportedMyST(f"{page}: directive {{{name}}} has no Jupyter form; "
                          "handle it in tools/myst_markdown.py")


def _fenced(source: str, language: str) -> list[str]:
    fence = "```"
    while fence in source:
        fence += "`"
    return [f"{fence}{language}", source.rstrip("\n"), fence]


def _included_source(path: Path, options: dict[str, str], page: Path) -> str:
    """The text a ``literalinclude`` shows: a whole file or one ``:pyobject:``."""
    known = {"language", "pyobject", "caption", "name"}
    if unknown := set(options) - known:
        raise UnsupportedMyST(f"{page}: literalinclude option(s) {sorted(unknown)} not handled "
                              "in tools/myst_markdown.py")
    if not path.is_file():
        raise UnsupportedMyST(f"{page}: literalinclude of a missing file {path}")
    source = path.read_text()
    if "pyobject" not in options:
        return source
    node = _find_object(ast.parse(source), options["pyobject"].split("."))
    if node is None:
        raise UnsupportedMyST(f"{page}: {path.name} has no {options['pyobject']}")
    first = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list])
    lines = source.split("\n")[first - 1:node.end_lineno]
    return textwrap.dedent("\n".join(lines))


def _find_object(tree: ast.AST, names: list[str]) -> ast.AST | None:
    for node in getattr(tree, "body", []):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == names[0]:
            return node if len(names) == 1 else _find_object(node, names[1:])
    return None
