from robrayc.cli.main import main

raise SystemExit(main())
