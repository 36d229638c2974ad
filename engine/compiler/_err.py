"""The compiler's error for a bad element: `CompileError` naming the element's file, line, tag
and attribute (one helper for every compiler phase module)."""
from ..errors import CompileError


def err(el, msg, attr=None):
    """CompileError ``msg`` about element ``el`` (a spec element or None) and ``attr``."""
    return CompileError(msg, el.file if el else None, el.line if el else None,
                        el.tag if el else None, attr)
