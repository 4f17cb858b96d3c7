from ltrfs.cli import main

raise SystemExit(main())
