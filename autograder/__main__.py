from autograder.cli import main

raise SystemExit(main())
