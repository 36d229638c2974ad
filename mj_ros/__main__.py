import sys

from mj_ros.sim_node import main

sys.exit(main())
