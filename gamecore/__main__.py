"""``python -m gamecore``: see :mod:`gamecore.cli`."""

from gamecore.cli import main

if __name__ == "__main__":
    main()
