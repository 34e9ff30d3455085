"""Subcommands of the ``servescope`` CLI, one module each (see ``servescope.cli``)."""
