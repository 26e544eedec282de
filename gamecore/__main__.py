"""``python -m gamecore``: see :mod:`gamecore.tools.cli`."""

from gamecore.tools.cli import main

if __name__ == "__main__":
    main()
