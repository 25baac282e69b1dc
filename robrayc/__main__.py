from robrayc.cli import main

raise SystemExit(main())
