"""Terminal output: highlighted source with ``rich`` on a terminal, plain text otherwise."""
import os
import sys


class CliError(Exception):
    """A problem the user can act on: printed as ``depyf CMD: error: MESSAGE`` (no
    traceback), exit ``status`` (1, or 2 for a usage error as argparse uses)."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


def error(command, message):
    sys.stderr.write("depyf %s: error: %s\n" % (command, message))


def note(message):
    """A status line for the user, on stderr so that stdout stays the program's / the source."""
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def _want_color(mode, stream):
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def print_source(text, color="auto"):
    """Print Python source: highlighted when colour is wanted and rich is installed
    (``color``: auto = only on a terminal; always; never), else as it is."""
    if _want_color(color, sys.stdout):
        try:
            from rich.console import Console
            from rich.syntax import Syntax
        except ImportError:
            pass
        else:
            # "always" even where NO_COLOR or TERM say otherwise (a pager: depyf ... | less -R)
            forced = dict(no_color=False, color_system="256") if color == "always" else {}
            console = Console(force_terminal=True, soft_wrap=True, **forced)
            console.print(Syntax(text.rstrip("\n"), "python", theme="ansi_dark",
                                 background_color="default", word_wrap=False))
            return
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
