"""Clean text for speech: no markup, emoji or pictographs a TTS must not read out.

`clean_for_speech` strips what a TTS must not read out: markdown syntax, HTML, emoji and
pictographic symbols (✓ ★ → © ™). Other signs stay (currency, %, ‰, §, ±): the number reader
says those it knows. Choices: fenced code blocks are dropped (code read aloud is noise), inline
code keeps its content, links keep their text, images are dropped, bare URLs are reduced to
their host name ("example.com"), list markers (bullets and "1." numbers) are dropped, and
list items, headings, table rows and paragraphs get a closing "." so they are spoken as
separate phrases. The result never contains line breaks.
"""

import re
import unicodedata
from urllib.parse import urlsplit

import emoji

FENCE_RE = re.compile(r"`{3,}")
_HTML_COMMENT_RE = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_AUTOLINK_RE = re.compile(r"<((?:https?|ftp|mailto):[^<>\s]+)>", re.IGNORECASE)
_IMAGE_RE = re.compile(r"!\[[^\[\]]*\]\([^()\s]*(?:\s+\"[^\"]*\")?\)")
_LINK_RE = re.compile(r"\[([^\[\]]*)\](?:\([^()\s]*(?:\s+\"[^\"]*\")?\)|\[[^\[\]]*\])")
_LINK_DEFINITION_RE = re.compile(r"^[ \t]*\[[^\[\]]+\]:[ \t]+\S+.*$", re.MULTILINE)
_FOOTNOTE_RE = re.compile(r"\[\^[^\[\]\s]*\]")
_URL_RE = re.compile(
    r"\b(?:(?:https?|ftp)://|www\.)[^\s<>\"'()\[\]]*[^\s<>\"'()\[\].,;:!?]", re.IGNORECASE
)
_WWW_RE = re.compile(r"^(?:www\d*\.)+")
_LINE_BREAK_TAG_RE = re.compile(r"<(?:br|/?p|/?div|/?li|/?tr|hr)\b[^<>]*>", re.IGNORECASE)
_HTML_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_ESCAPE_RE = re.compile(r"\\+(?=[!-/:-@\[-`{-~])")
_RULE_LINE_RE = re.compile(r"^[ \t]*(?:[-*_=:|][ \t]*){3,}$")
_LINE_PREFIX_RE = re.compile(
    r"^[ \t]*(?:(?:>|(?:#{1,6}|[-*+•]|\d{1,3}[.)]|\[[ xX]\])(?![^ \t]))[ \t]*)+"
)
_EMPHASIS_RUN_RE = re.compile(r"[*_~]+")
_DROPPED_CHAR = "\x00"
_SPACED_DROP_RE = re.compile(r"(?<=\w)\x00+(?=\w)")
_DROP_BEFORE_PUNCT_RE = re.compile(r"[ \t]*\x00+(?=[.,;:!?…])")
_WHITESPACE_RE = re.compile(r"\s+")
_MAYBE_EMOJI_RE = re.compile("[\u00a9\u00ae\u203c-\u3299\ufe0f\U0001f000-\U0010ffff]")
"""Every emoji holds one of these (©, ®, U+203C-U+3299 symbols, VS16, U+1F000 and above)."""
_ASCII_UNSPEAKABLE_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f^`]")
"""The ASCII characters `_is_unspeakable` drops (a test checks this against it)."""

_DROPPED_CATEGORIES = frozenset({"So", "Sk", "Sm", "Co", "Cn", "Cs", "Cc", "Cf", "Me"})
_KEPT_SYMBOLS = frozenset("+<=>~|°±×÷−℃℉≈≥≤≠\t\n\r\u200c\u200d")  # noqa: RUF001
"""Symbols kept for speech: the minus sign and degree signs are read by text.numbers."""
_MAX_PASSES = 4

FENCE = "```"


def clean_for_speech(text: str) -> str:
    """Return `text` without markup, emoji and unspeakable symbols, whitespace collapsed.

    Stripping one layer of markup can expose another (`**-** x` leaves a bullet), so the
    cleanup is repeated until the text is stable; that makes the function idempotent.
    Text without a single letter or digit (say "🎉." or "---") has nothing to speak: "".
    """
    for _ in range(_MAX_PASSES):
        cleaned = _clean_once(text)
        if cleaned == text:
            break
        text = cleaned
    return text if any(char.isalnum() for char in text) else ""


def _clean_once(text: str) -> str:
    text = _drop_code_blocks(text)
    text = _strip_links_and_html(text)
    text = text.replace("`", "")
    text = _ESCAPE_RE.sub("", text)
    text = _drop_symbols(text)
    lines = (_clean_line(line) for line in text.splitlines())
    return _WHITESPACE_RE.sub(" ", _end_blocks(list(lines))).strip()


def _drop_code_blocks(text: str) -> str:
    """Keep only the text outside ``` fences; an unclosed fence runs to the end."""
    return "\n".join(FENCE_RE.split(text)[::2])


def _strip_links_and_html(text: str) -> str:
    text = _HTML_COMMENT_RE.sub("", text)
    text = _AUTOLINK_RE.sub(r"\1", text)
    text = _IMAGE_RE.sub("", text)
    text = _LINK_RE.sub(r"\1", text)
    text = _LINK_DEFINITION_RE.sub("", text)
    text = _FOOTNOTE_RE.sub("", text)
    text = _URL_RE.sub(_url_host, text)
    text = _LINE_BREAK_TAG_RE.sub("\n", text)
    return _HTML_TAG_RE.sub("", text)


def _url_host(match: re.Match[str]) -> str:
    """Speak a URL as its host name: nobody wants to hear a path or query string."""
    url = match.group()
    if "://" not in url:
        url = "http://" + url
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    return _WWW_RE.sub("", host)


def _drop_symbols(text: str) -> str:
    """Remove emoji and unspeakable characters without gluing the words around them."""
    if _MAYBE_EMOJI_RE.search(text):  # the emoji scan costs ~15 ms per 5000 characters
        text = emoji.replace_emoji(text, replace=_DROPPED_CHAR)
    if not text.isascii() or _ASCII_UNSPEAKABLE_RE.search(text):
        text = "".join(_DROPPED_CHAR if _is_unspeakable(char) else char for char in text)
    text = _SPACED_DROP_RE.sub(" ", text)
    return _DROP_BEFORE_PUNCT_RE.sub("", text).replace(_DROPPED_CHAR, "")


def _is_unspeakable(char: str) -> bool:
    if char in _KEPT_SYMBOLS:
        return False
    category = unicodedata.category(char)
    if category == "Mn":
        return unicodedata.name(char, "").startswith("VARIATION SELECTOR")
    return category in _DROPPED_CATEGORIES


def _clean_line(line: str) -> tuple[str, bool]:
    """Strip block markup from one line; report whether it was a list item, heading or row."""
    if _RULE_LINE_RE.match(line):
        return "", False
    prefix = _LINE_PREFIX_RE.match(line)
    is_block = prefix is not None
    if prefix:
        line = line[prefix.end() :]
    if "|" in line:
        line = ", ".join(cell.strip() for cell in line.split("|") if cell.strip())
        is_block = True
    return _EMPHASIS_RUN_RE.sub(_emphasis_run, line).strip(), is_block


def _emphasis_run(match: re.Match[str]) -> str:
    """Drop emphasis markers but keep intra-word ones (`snake_case`, `5*3`) and a lone `~`."""
    run, text = match.group(), match.string
    if run == "~":
        return run
    start, end = match.start(), match.end()
    intraword = start > 0 and end < len(text) and text[start - 1].isalnum() and text[end].isalnum()
    return run if intraword else ""


def _end_blocks(lines: list[tuple[str, bool]]) -> str:
    """Join lines, ending blocks (items, headings, rows, paragraphs) that lack punctuation."""
    out = []
    for index, (line, is_block) in enumerate(lines):
        next_is_blank = index + 1 < len(lines) and not lines[index + 1][0]
        if line and line[-1].isalnum() and (is_block or next_is_blank):
            line += "."
        out.append(line)
    return "\n".join(out)
