import sys

from servescope.cli import main

sys.exit(main())
