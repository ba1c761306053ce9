"""``python -m tempogen.cli``: the ``tempogen`` command."""

import sys

from tempogen.plugins import drop_implicit_cwd

drop_implicit_cwd()  # ``python -m`` put the current folder first; plugins never need it

from tempogen.cli.app import main  # noqa: E402

sys.exit(main())
