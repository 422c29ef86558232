from augur.cli import main

raise SystemExit(main())
