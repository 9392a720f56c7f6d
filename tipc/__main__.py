import sys

from tipc.cli.main import main

sys.exit(main())
