import sys

from meduris_rl.cli.main import main

sys.exit(main())
